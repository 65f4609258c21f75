// The metrics of a run by name, for `expect` bounds: a name is the dotted path of a number
// under `metrics` in summary.json ("jct_s.p95" is summary.json's /metrics/jct_s/p95).
//
// The catalogue (analysis/metrics/metric_catalogue.h) lists every such path a run can produce;
// `*` stands for one name chosen by the scenario (a MIG profile). Some paths exist only in some
// runs: `slots.*` with models that split GPUs into slots (mig and its hybrids), `requests.*`
// with inference services. Per-service records (metrics.requests.services, an array) are not metrics here.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gpumux {

// Every catalogue name that is a path in summary.json, in summary order
// ("slots.profiles.*.occupancy" for the patterns).
const std::vector<std::string>& metric_names();

// True when `name` is in the catalogue (a `*` there matches any one segment).
bool is_known_metric(const std::string& name);

// The JSON pointer of `name` inside summary.json, e.g. "/metrics/jct_s/p95".
std::string metric_pointer(const std::string& name);

// A metric's value in one run.
struct MetricValue {
  std::optional<double> value;  // absent: n/a
  std::string why_na;           // when absent: why, in words ("no finished jobs", ...)
};

// Reads a known metric from a run's summary. An empty set (a percentile of no jobs, a share of
// no GPU time), a metric the run does not have (slots without a slot model, requests without
// services, a profile the scenario never used) are n/a, each with its reason.
MetricValue read_metric(const nlohmann::json& summary, const std::string& name);

// The metric names a summary (or either of two) holds: the catalogue's, each `*` replaced by
// the keys the summaries hold at that place (slots.profiles.<profile>.*).
std::vector<std::string> summary_metric_names(const nlohmann::json& a, const nlohmann::json& b);

// Checks the types along each named metric of a run's summary read from `file`: every step to
// the metric an object, the metric (when there) a number or null. A summary that is none of
// these (hand-edited, another program's) is an InputError naming `file#/metrics/...`, not a run
// whose metrics read as n/a. The summary must be an object whose `metrics` is an object.
void check_summary_metric_types(const nlohmann::json& summary, const std::string& file,
                                const std::vector<std::string>& names);

}  // namespace gpumux
