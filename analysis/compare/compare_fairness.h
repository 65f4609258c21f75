// What a comparison's reader must know before trusting its rows (docs/comparing-and-reports.md
// "Fair comparisons"):
// - Job sets. JCT, queueing and slowdown percentiles are over the jobs each run finished; when
//   the variants of one seed finished different numbers of jobs (or not every arrival), their
//   latency rows compare different job sets, and a variant that finished only the quick jobs
//   looks fast.
// - Seeds. When every variant gives the same value for every metric in every seed, the seeds
//   drew nothing the runs use, and a "± 0.000" interval says nothing about variability.
// - Paired differences. Variants run the same seeds (the same drawn jobs), so the difference
//   of a variant from a baseline, paired by seed, has a far narrower interval than the two
//   unpaired intervals suggest.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/compare/compare.h"

namespace gpumux {

// Whether there are two seeds or more and every variant gave, for every metric, the same value
// (or n/a) in every seed: the seeds changed nothing the runs use, and an interval across them
// would be a meaningless "± 0".
bool seeds_changed_nothing(const CompareResult& result);

// What follows a cell's value in the tables when the seeds changed nothing: the one value all
// seeds gave, in place of "mean ± 0".
inline constexpr std::string_view kSameInEverySeedMark = "(all seeds)";

// Warnings in reading order, each one sentence (no trailing newline); empty when there is
// nothing to warn about. The job-set warning needs the jobs.arrived and jobs.finished rows
// (compare_metrics.h); the seeds warning comes with seeds_changed_nothing.
std::vector<std::string> compare_warnings(const CompareResult& result);

// One metric of one variant minus the baseline, paired by seed.
struct PairedCell {
  std::size_t n = 0;  // seeds where both have a value
  // Over the seeds; absent unless every seed has both values (as CompareCell), half_width
  // also with fewer than 2 seeds.
  std::optional<double> mean;
  std::optional<double> half_width;
};

struct PairedDifferences {
  std::size_t baseline = 0;                  // index into result.variants
  std::vector<std::vector<PairedCell>> cells;  // [variant][metric]; the baseline's row empty
};

// Precondition: baseline < result.variants.size().
PairedDifferences paired_differences(const CompareResult& result, std::size_t baseline);

}  // namespace gpumux
