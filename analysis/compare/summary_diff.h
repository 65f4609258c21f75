// `gpumux diff A B`: two runs' summary.json compared metric by metric (the golden-file gate for
// users who check "no change" rather than bounds, docs/checks.md "Diffing two runs").
//
// Every metric of the catalogue (analysis/metrics/metric_catalogue.h) that either summary has is
// compared; a `*` name (a MIG profile) stands for each name either summary holds there. The
// relative difference is |a - b| / max(|a|, |b|) (0 when both are 0); a metric differs when it
// exceeds its tolerance, or when it is n/a in one summary and not in the other. The default
// tolerance is 0: exact equality.
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

struct MetricDiff {
  std::string metric;
  std::optional<double> a, b;  // absent: n/a
  double relative = 0.0;       // meaningless when either side is n/a
  double tolerance = 0.0;
  bool differs = false;
};

struct SummaryDiff {
  std::vector<MetricDiff> metrics;  // every metric compared, in catalogue order
  std::size_t differing() const;
};

SummaryDiff diff_summaries(const nlohmann::json& a, const nlohmann::json& b,
                           const DiffTolerances& tolerances);

// The differing metrics as an aligned table (metric, A, B, rel. diff, tolerance), then one line:
// "diff: all N metrics within tolerance" or "diff: K of N metrics differ beyond tolerance".
void print_diff_table(const SummaryDiff& diff, std::ostream& out);

// {"same", "compared", "differences": [{metric, a, b, relative_difference, tolerance}]}.
nlohmann::json diff_to_json(const SummaryDiff& diff);

}  // namespace gpumux
