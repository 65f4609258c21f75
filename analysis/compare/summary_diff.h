// `gpumux diff A B`: two runs' summary.json compared metric by metric (the golden-file gate for
// users who check "no change" rather than bounds, docs/checks.md "Diffing two runs").
//
// Every metric of the catalogue (analysis/metrics/metric_catalogue.h) that either summary has is
// compared; a `*` name (a MIG profile) stands for each name either summary holds there. The
// relative difference is |a - b| / max(|a|, |b|) (0 when both are 0); a metric differs when it
// exceeds its tolerance, or when it is n/a in one summary and not in the other. The default
// tolerance is 0: exact equality.
//
// Each difference is judged by the catalogue's direction (Better): B worse or better than A, or
// unjudged (a metric with no direction, such as a count of jobs, or a value against n/a). A
// gate fails on any difference (FailOn::kAny, the default) or only on those not judged better
// (FailOn::kWorse: an improvement passes). Metrics matching an ignore pattern (`*`, `?`) are
// not compared.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gpumux {

// A summary.json file, or a run folder holding one. Throws InputError naming the file when it
// is missing, not JSON, or no summary (no `metrics` object).
nlohmann::json read_summary_input(const std::string& path);

struct DiffTolerances {
  double fallback = 0.0;                  // `*=REL`: every metric not named
  std::map<std::string, double> by_name;  // a metric, or a group prefix ("jct_s": jct_s.*)
  double of(const std::string& metric) const;
};

// --tolerance METRIC=REL arguments (REL a relative difference >= 0, e.g. 0.01 for 1 %).
// Throws InputError naming the argument for a malformed one or an unknown metric (with the
// closest names).
DiffTolerances parse_diff_tolerances(const std::vector<std::string>& args);

enum class DiffChange { kWorse, kBetter, kUnjudged };
enum class FailOn { kAny, kWorse };

// "worse", "better", "unjudged"; and "any" / "worse" for FailOn.
const char* change_name(DiffChange change);
const char* fail_on_name(FailOn fail_on);

struct MetricDiff {
  std::string metric;
  std::optional<double> a, b;  // absent: n/a
  double relative = 0.0;       // meaningless when either side is n/a
  double tolerance = 0.0;
  bool differs = false;
  DiffChange change = DiffChange::kUnjudged;  // of B against A, when it differs
};

struct SummaryDiff {
  std::vector<MetricDiff> metrics;  // every metric compared, in catalogue order
  std::size_t ignored = 0;          // metrics either summary has that an ignore pattern skipped
  FailOn fail_on = FailOn::kAny;
  std::size_t differing() const;
  // The differences the gate fails on: all of them, or under kWorse those not judged better.
  std::size_t failing() const;
  bool fails(const MetricDiff& m) const;
};

SummaryDiff diff_summaries(const nlohmann::json& a, const nlohmann::json& b,
                           const DiffTolerances& tolerances,
                           const std::vector<std::string>& ignore = {},
                           FailOn fail_on = FailOn::kAny);

// --ignore GLOB arguments: each must be non-empty and match some catalogue metric name (a `*`
// entry as written) or one of `summary_names` (summary_metric_names of the two summaries: the
// names a `*` entry stands for there), else InputError naming the argument.
void check_ignore_patterns(const std::vector<std::string>& patterns,
                           const std::vector<std::string>& summary_names = {});

// The differing metrics as an aligned table (metric, A, B, rel. diff, tolerance, change), then
// one line: "diff: all N metrics within tolerance" or "diff: K of N metrics differ beyond
// tolerance", with under --fail-on worse how many of them fail the gate, and the ignored count.
void print_diff_table(const SummaryDiff& diff, std::ostream& out);

// {"same", "compared", "ignored", "fail_on", "failing", "differences": [{metric, a, b,
// relative_difference, tolerance, change}]}; "same": no metric differs, "failing": how many
// differences fail the gate.
nlohmann::json diff_to_json(const SummaryDiff& diff);

}  // namespace gpumux
