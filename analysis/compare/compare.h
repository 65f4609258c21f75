// `gpumux compare`: one scenario under several sharing models (the variants), each run with
// several seeds (the scenario's seed, seed + 1, ...), its metrics set side by side as the mean
// and the 95% interval across seeds (mean_interval.h).
//
// Runs. Variants x seeds runs, in-process, on up to `threads` threads (parallel_tasks.h), all
// reading the trace through one cache (CompareRequest::trace_cache); results are placed by
// index (variant, then seed), so the result, the table, the CSV and the JSON do not depend on the
// thread count or on timing. Each model's params are chosen as `gpumux plan` chooses them
// (model_choice.h). Every variant's scenario is parsed for every seed before the first run, so bad
// input fails before anything runs or is written.
//
// Outputs. Without an out dir nothing is written: only the summary of each run is kept in
// memory. With one, each run writes its normal outputs (summary.json, jobs.csv,
// timeseries.csv, as the scenario's outputs block selects) to OUT/<model>/seed-<seed>/, and
// the comparison compare.csv, compare.json (and report.html) to OUT, all into OUT's temporary
// twin that replaces OUT as a whole once everything is written (output_folder.h): a failed or
// stopped comparison leaves OUT as it was, and a second one into OUT fails at once.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/compare/compare_metrics.h"
#include "analysis/run/model_choice.h"
#include "analysis/run/trace_cache.h"

namespace gpumux {

struct CompareRequest {
  std::string scenario_file;
  std::vector<std::string> sets;  // --set overrides, applied before anything else
  std::vector<ModelRequest> models;
  int seeds = 1;    // >= 1
  int threads = 1;  // >= 1
  std::optional<std::string> out_dir;
  bool check_invariants = false;  // RunOptions::check_invariants for every run
  bool report = false;            // also report.html in the out dir (needs out_dir)
  std::string baseline;           // model of the paired-difference table; empty: the first
  // Every run reads the trace through this cache (analysis/run/trace_cache.h), so that a
  // comparison reads its trace file once, whatever the variants, seeds and threads. Null:
  // run_compare makes its own. A caller that passes one can count its reads.
  std::shared_ptr<TraceCache> trace_cache;
  // Each run reads the trace file itself, bypassing the cache: slower, the same outputs (tests
  // compare the two).
  bool read_trace_per_run = false;
};

// One metric of one variant across the seeds.
struct CompareCell {
  std::vector<std::optional<double>> values;  // per seed, in seed order; absent: null (n/a)
  std::size_t n = 0;                          // seeds with a value
  // Over all seeds; absent when some seed has no value (the mean of the others would compare
  // unlike sets), the half-width also with a single seed.
  std::optional<double> mean;
  std::optional<double> half_width;
};

struct CompareVariant : ModelChoice {
  std::vector<std::string> run_dirs;  // per seed, with an out dir; else empty
  std::vector<CompareCell> cells;     // per metric of CompareResult::metrics
};

struct CompareResult {
  std::string scenario_name;
  std::string scenario_file;
  std::vector<std::uint64_t> seeds;
  std::vector<CompareMetric> metrics;
  std::vector<CompareVariant> variants;  // in the order asked
  std::size_t baseline = 0;              // the variant the paired differences are taken from
  // The build and every variant's input files (analysis/run/provenance.h).
  nlohmann::json provenance;
};

// Throws InputError for a bad scenario, override, model or params (before any run), or for a
// bad trace row met during a run.
CompareResult run_compare(const CompareRequest& request, std::ostream* progress);

}  // namespace gpumux
