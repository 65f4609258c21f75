// Per-endpoint bounds: one selector grammar for `expect` bounds and `plan --objective`,
// `METRIC<=X for SELECTOR` (an `expect` key "METRIC for SELECTOR"). The selector picks the
// inference services (endpoints) of a run by
//   NAME     its id, exactly                 (llm-chat-1)
//   GLOB     ids matching a pattern, `*` any run of characters, `?` one (llm-*)
//   class:C  the services whose `class` is C (services.by_id / services.default `class`)
// and the bound must hold for every endpoint it picks, each on its own numbers (the per-service
// row of metrics.requests.services), not on the pool. Only the request metrics an endpoint
// reports on its own take a selector (per_endpoint_metrics()); a selector that picks no
// endpoint of a run is an error naming the bound, not a bound met by nobody.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/metrics/summary_metrics.h"

namespace gpumux {

struct EndpointSelector {
  enum class Kind { kName, kGlob, kClass };
  Kind kind = Kind::kName;
  std::string pattern;  // the id, the glob, or the class

  // As written: "llm-*", "class:chat".
  std::string text() const;
  // Whether it picks the endpoint `id` of class `service_class` ("" when it has none).
  bool selects(std::string_view id, std::string_view service_class) const;
};

// A bound's subject split at " for ": the metric as written and the selector, if any.
struct BoundSubject {
  std::string metric;
  std::optional<EndpointSelector> endpoints;
};

// Splits "METRIC for SELECTOR" (spaces around `for` required; none: the whole text is the
// metric) and parses the selector. Throws InputError at `where`, field `field`, for an empty
// selector, an empty class, or a selector with spaces.
BoundSubject parse_bound_subject(const std::string& text, const std::string& where,
                                 const std::string& field);

// Throws InputError at `where` unless `metric` (a catalogue name) is reported per endpoint.
void require_per_endpoint_metric(const std::string& metric, const std::string& where);
// The catalogue names an endpoint reports on its own, in catalogue order (`requests.` names).
const std::vector<std::string>& per_endpoint_metrics();
// Whether a per-endpoint metric is one only an LLM endpoint reports (its token metrics, under
// the row's `llm` object: requests.ttft_ms.p99, requests.refused, ...), not every service's
// counts, latency and SLO (requests.latency_ms.p99, requests.dropped, ...).
bool metric_of_llm_endpoints_only(std::string_view metric);

// One picked endpoint's value of a metric.
struct EndpointValue {
  std::string id;
  MetricValue value;
};

// The metric (a `requests.` name per_endpoint_metrics() lists) of every endpoint the selector
// picks, in the summary's order of services. Empty when the summary has no services or none is
// picked.
std::vector<EndpointValue> endpoint_values(const nlohmann::json& summary, const std::string& metric,
                                           const EndpointSelector& endpoints);

// How a per-endpoint bound [low, high] (either end absent: open) fares, the one rule of `expect`
// and `plan --objective`: it holds when every endpoint's value is within it, and the endpoint
// it reports is the first (in order) whose value is n/a or outside, else the one nearest an end.
// Precondition: `values` is not empty.
struct EndpointVerdict {
  const EndpointValue* shown = nullptr;  // into `values`
  bool holds = false;
};
EndpointVerdict judge_endpoints(const std::vector<EndpointValue>& values, std::optional<double> low,
                                std::optional<double> high);

}  // namespace gpumux
