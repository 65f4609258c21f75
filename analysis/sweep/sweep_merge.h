// `gpumux merge DIR` (also the end of `gpumux sweep`): the runs' results in DIR (sweep_store.h)
// gathered in run-index order into
//   DIR/sweep.csv   tidy, in the format of compare.csv: variant,seed,metric,value, one row per
//                   finished run and metric (the metrics of `gpumux compare`: compare_metrics.h);
//                   a variant holding a comma or a quote is quoted as RFC 4180 says
//   DIR/sweep.json  {sweep, runs: {total, succeeded, failed, missing}, confidence, variants:
//                   [{variant, scenario, model, axes, seeds, runs, metrics: {NAME: {mean,
//                   ci95_half_width, n, values}}}], failures: [{index, variant, seed, error}],
//                   missing: [index...], provenance: {build, inputs}}
// Both depend only on the runs' files (and sweep.json on the build that merges), never on which
// process, thread or shard ran them, and carry no path and no time: the same sweep merges to the
// same bytes.
//
// A run whose summary.json records an input of other bytes than the sweep began with
// (sweep_inputs.h) is bad input: nothing is merged.
//
// A failed run has no rows in sweep.csv; it is counted and listed with its error in sweep.json.
// A variant's mean and interval are over its seeds that ended.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/compare/compare.h"
#include "analysis/sweep/sweep_plan.h"

namespace gpumux {

struct SweepVariantResult {
  std::string variant;
  std::string scenario;
  std::string model;
  std::vector<SweepAxisValue> axes;
  std::vector<std::size_t> runs;      // indices of the variant's runs that ended
  std::vector<std::uint64_t> seeds;   // their seeds
  std::vector<CompareMetric> metrics;
  std::vector<CompareCell> cells;     // per metric
};

struct SweepFailure {
  std::size_t index = 0;
  std::string variant;
  std::uint64_t seed = 0;
  std::string error;
};

struct SweepMerge {
  std::string name;
  std::string description;
  std::size_t total = 0;
  std::size_t succeeded = 0;
  std::vector<SweepFailure> failures;
  std::vector<std::size_t> missing;  // runs with no result (not run yet, or killed)
  std::vector<SweepVariantResult> variants;  // in order of their first run
  std::vector<SweepInput> inputs;            // the plan's (sweep_inputs.h)
  bool inputs_recorded = true;
};

// Reads DIR. Throws InputError when DIR is no sweep folder, a run's summary.json is unreadable,
// or (unless `partial`) some run has no result yet: the message says how many and which.
SweepMerge merge_sweep(const std::string& dir, bool partial);

nlohmann::json sweep_merge_to_json(const SweepMerge& merge);

// What sweep.csv holds: the header, then the rows of each ended run in index order.
void write_sweep_csv(const SweepMerge& merge, std::ostream& out);

// Writes DIR/sweep.csv and DIR/sweep.json, each atomically.
void write_sweep_merge(const SweepMerge& merge, const std::string& dir);

// The counts, then one row per variant (at most `max_rows`) with a few key metrics as
// "mean ± half-width" over its seeds, and the failures.
void print_sweep_table(const SweepMerge& merge, std::ostream& out, std::size_t max_rows = 40);

}  // namespace gpumux
