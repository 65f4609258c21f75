// The rows of `gpumux compare`: which summary metrics it sets side by side, in which order; each
// row's label and decimals are the metric catalogue's (metric_catalogue.h). Names are the metric
// names of `expect` (summary_metrics.h: dotted paths under `metrics` in summary.json).
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gpumux {

struct Scenario;

struct CompareMetric {
  std::string name;   // e.g. "jct_s.p95"
  std::string label;  // e.g. "JCT p95 (s)"
  int digits = 0;     // decimals of a single run's value; a mean of counts gets one
  bool count = false;
};

// The rows, in table order; the request-latency rows only when `services` (the scenario has
// inference services), the LLM rows (TTFT, TPOT, output tokens/s, goodput) only when `llm` (it
// has an LLM endpoint, scenarios/service_config.h has_llm_endpoint), the GPU-share rows (allocation by gpu_milli, FGD fragmentation) only
// when `shares` (its model limits compute shares or its placement is share-aware).
// `compare` and `sweep` both take their rows from here, so that compare.csv and sweep.csv hold
// the same metrics for the same runs.
std::vector<CompareMetric> compare_metrics(bool services, bool shares = false, bool llm = false);

// The per-endpoint rows of a comparison, from one of its runs' summaries: when it has 2 to
// kMaxEndpointRows services, for each in order its TTFT p99 and TPOT p99 (an LLM endpoint) or
// its latency p99 (another service), named "METRIC for ID" (the per-endpoint grammar,
// analysis/metrics/endpoint_selector.h) and labelled "TTFT p99 (ms) ID". None otherwise: one
// service is the pooled rows, and a fleet of many would bury the table.
inline constexpr std::size_t kMaxEndpointRows = 16;
std::vector<CompareMetric> endpoint_rows(const nlohmann::json& summary);

// Rows per kind of job for a run whose summary splits its jobs by kind (metrics.by_kind,
// analysis/metrics/kind_metrics.h: two kinds or more): for training and batch inference jobs
// JCT mean and p95 and queueing delay p95, for services their start delay p95, labelled
// "training JCT p95 (s)". None for a run of one kind.
std::vector<CompareMetric> kind_rows(const nlohmann::json& summary);

// A row's value in a run's summary: a pooled metric (read_metric), or for a "METRIC for ID"
// row that endpoint's own value (n/a when the run lacks the endpoint).
std::optional<double> compare_value(const nlohmann::json& summary, const std::string& name);

// Whether a run of `scenario` reports the GPU-share metrics (`shares.*`): its model limits
// compute shares or its placement is share-aware. A comparison or a sweep's scenario shows the
// share rows for all its variants when any of its runs reports them, so that the variants
// without them read n/a rather than lacking the rows.
bool reports_shares(const Scenario& scenario);

}  // namespace gpumux
