#include "analysis/metrics/endpoint_selector.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/metrics/json_path.h"
#include "analysis/metrics/metric_catalogue.h"
#include "sim/base/glob_match.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

constexpr std::string_view kRequests = "requests.";
constexpr std::string_view kClass = "class:";

// The request metrics a service's own row reports (metrics.requests.services[i]), at the same
// path as the pooled metric: its counts, latency and SLO at the row's top level (the first
// kEveryServiceRoots, every service's), an LLM endpoint's token metrics under its `llm` object.
// The pooled-only ones (services_unstarted, served_per_s, start_delay_s.*) are not listed.
constexpr std::size_t kEveryServiceRoots = 7;
constexpr std::string_view kRowRoots[] = {"count",
                                          "served",
                                          "dropped",
                                          "timed_out",
                                          "unfinished",
                                          "latency_ms",
                                          "slo_attainment",
                                          "ttft_ms",
                                          "tpot_ms",
                                          "itl_ms",
                                          "refused",
                                          "preemptions",
                                          "requests_per_s",
                                          "output_tokens_per_s",
                                          "total_tokens_per_s",
                                          "goodput_per_s",
                                          "goodput_share",
                                          "prompt_tokens",
                                          "output_tokens",
                                          "iterations",
                                          "busy_s",
                                          "mean_batch",
                                          "peak_batch",
                                          "kv_cache_use"};

}  // namespace

std::string EndpointSelector::text() const {
  return kind == Kind::kClass ? std::string(kClass) + pattern : pattern;
}

bool EndpointSelector::selects(std::string_view id, std::string_view service_class) const {
  switch (kind) {
    case Kind::kName:
      return id == pattern;
    case Kind::kGlob:
      return glob_match(pattern, id);
    case Kind::kClass:
      return !service_class.empty() && service_class == pattern;
  }
  return false;
}

BoundSubject parse_bound_subject(const std::string& text, const std::string& where,
                                 const std::string& field) {
  BoundSubject out;
  const std::size_t at = text.find(" for ");
  if (at == std::string::npos) {
    out.metric = text;
    return out;
  }
  out.metric = text.substr(0, at);
  while (!out.metric.empty() && out.metric.back() == ' ') out.metric.pop_back();
  std::string selector = text.substr(at + 5);
  const auto first = selector.find_first_not_of(' ');
  selector = first == std::string::npos ? "" : selector.substr(first);
  while (!selector.empty() && selector.back() == ' ') selector.pop_back();
  const std::string grammar =
      " (after `for`: an endpoint's id, a glob such as llm-*, or class:NAME)";
  if (selector.empty())
    throw InputError(where, field, "no endpoint selector after `for`" + grammar);
  if (selector.find_first_of(" \t") != std::string::npos) {
    throw InputError(where, field, "selector '" + selector + "' holds a space" + grammar);
  }
  EndpointSelector s;
  if (selector.rfind(kClass, 0) == 0) {
    s.kind = EndpointSelector::Kind::kClass;
    s.pattern = selector.substr(kClass.size());
    if (s.pattern.empty()) throw InputError(where, field, "class: names no class" + grammar);
  } else {
    s.kind = selector.find_first_of("*?") != std::string::npos ? EndpointSelector::Kind::kGlob
                                                               : EndpointSelector::Kind::kName;
    s.pattern = selector;
  }
  out.endpoints = s;
  return out;
}

bool metric_of_llm_endpoints_only(std::string_view metric) {
  if (metric.rfind(kRequests, 0) != 0) return false;
  const std::string_view rest = metric.substr(kRequests.size());
  const std::string_view root = rest.substr(0, rest.find('.'));
  const auto* end = std::begin(kRowRoots) + kEveryServiceRoots;
  return std::find(std::begin(kRowRoots), end, root) == end &&
         std::find(end, std::end(kRowRoots), root) != std::end(kRowRoots);
}

const std::vector<std::string>& per_endpoint_metrics() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const MetricInfo& m : metric_catalogue()) {
      if (m.derived || m.name.rfind(kRequests, 0) != 0) continue;
      const std::string rest = m.name.substr(kRequests.size());
      const std::string root = rest.substr(0, rest.find('.'));
      if (std::find(std::begin(kRowRoots), std::end(kRowRoots), root) != std::end(kRowRoots)) {
        out.push_back(m.name);
      }
    }
    return out;
  }();
  return names;
}

void require_per_endpoint_metric(const std::string& metric, const std::string& where) {
  const auto& names = per_endpoint_metrics();
  if (std::find(names.begin(), names.end(), metric) != names.end()) return;
  throw InputError(where, metric,
                   "is not reported per endpoint, so it takes no `for` selector; per-endpoint "
                   "metrics are the request metrics of each service's row, e.g. "
                   "requests.latency_ms.p99, requests.ttft_ms.p99, requests.tpot_ms.p99, "
                   "requests.slo_attainment, requests.goodput_share");
}

std::vector<EndpointValue> endpoint_values(const nlohmann::json& summary, const std::string& metric,
                                           const EndpointSelector& endpoints) {
  std::vector<EndpointValue> out;
  const nlohmann::json* services = json_at_path(summary, "metrics.requests.services");
  if (!services || !services->is_array()) return out;
  const std::string_view rest = std::string_view(metric).substr(kRequests.size());
  for (const nlohmann::json& row : *services) {
    if (!row.is_object()) continue;
    const nlohmann::json* id = json_at_path(row, "id");
    const nlohmann::json* cls = json_at_path(row, "class");
    const std::string id_text = id && id->is_string() ? id->get<std::string>() : "";
    const std::string class_text = cls && cls->is_string() ? cls->get<std::string>() : "";
    if (!endpoints.selects(id_text, class_text)) continue;
    EndpointValue v{id_text, {}};
    const nlohmann::json* at = json_at_path(row, rest);
    if (!at) {
      const nlohmann::json* llm = json_at_path(row, "llm");
      at = llm ? json_at_path(*llm, rest) : nullptr;
    }
    if (at && at->is_number()) {
      v.value.value = at->get<double>();
    } else if (at && at->is_null()) {
      v.value.why_na = "no request of endpoint '" + id_text + "' to measure";
    } else {
      v.value.why_na = "endpoint '" + id_text + "' reports no " + std::string(rest) +
                       (metric_of_llm_endpoints_only(metric) ? " (it is no LLM endpoint)" : "");
    }
    out.push_back(std::move(v));
  }
  return out;
}

EndpointVerdict judge_endpoints(const std::vector<EndpointValue>& values, std::optional<double> low,
                                std::optional<double> high) {
  // How far past its nearest end a value lies (negative inside): larger is nearer to failing.
  auto nearness = [&](double v) {
    double n = -INFINITY;
    if (high) n = std::max(n, v - *high);
    if (low) n = std::max(n, *low - v);
    return n;
  };
  EndpointVerdict verdict{nullptr, true};
  for (const EndpointValue& e : values) {
    const std::optional<double>& v = e.value.value;
    if (!v || (low && *v < *low) || (high && *v > *high)) return {&e, false};
    if (!verdict.shown || nearness(*v) > nearness(*verdict.shown->value.value)) verdict.shown = &e;
  }
  return verdict;
}

}  // namespace gpumux
