#include "analysis/compare/compare_metrics.h"

#include <nlohmann/json.hpp>
#include <span>

#include "analysis/metrics/endpoint_selector.h"
#include "analysis/metrics/metric_catalogue.h"
#include "analysis/metrics/summary_metrics.h"
#include "scenarios/scenario.h"
#include "sim/placement/registry.h"

namespace gpumux {

std::vector<CompareMetric> compare_metrics(bool services, bool shares, bool llm) {
  std::vector<std::string> rows = {
      "gpu_allocation_ratio",
      "sm_busy_utilization",
      "jct_s.mean",
      "jct_s.p50",
      "jct_s.p95",
      "jct_s.p99",
      "queueing_delay_s.mean",
      "queueing_delay_s.p95",
  };
  if (shares) {
    rows.insert(rows.end(), {"shares.allocation_ratio", "shares.fragmentation_gpus",
                             "shares.fragmentation_of_idle"});
  }
  if (services) {
    rows.insert(rows.end(), {"requests.latency_ms.p50", "requests.latency_ms.p95",
                             "requests.latency_ms.p99", "requests.slo_attainment"});
  }
  if (llm) {
    rows.insert(rows.end(), {"requests.ttft_ms.p50", "requests.ttft_ms.p99", "requests.tpot_ms.p50",
                             "requests.tpot_ms.p99", "requests.output_tokens_per_s",
                             "requests.goodput_per_s"});
  }
  rows.insert(rows.end(), {"jobs.arrived", "jobs.finished", "failures.memory_fault_kills",
                           "jobs.failed", "jobs.rejected", "jobs.unfinished_queued",
                           "jobs.unfinished_running", "mean_allocated_gpus"});
  std::vector<CompareMetric> metrics;
  for (const std::string& name : rows) {
    // Every row has a label and decimals in the catalogue: a row without them fails its test.
    const MetricInfo* m = metric_catalogue().find(name);
    if (!m || m->label.empty() || m->digits < 0) {
      metrics.push_back({name, name, 3, false});
      continue;
    }
    metrics.push_back({name, m->label, m->digits, m->count});
  }
  return metrics;
}

std::vector<CompareMetric> endpoint_rows(const nlohmann::json& summary) {
  std::vector<CompareMetric> rows;
  const auto at = nlohmann::json::json_pointer("/metrics/requests/services");
  if (!summary.contains(at) || !summary.at(at).is_array()) return rows;
  const nlohmann::json& services = summary.at(at);
  if (services.size() < 2 || services.size() > kMaxEndpointRows) return rows;
  for (const nlohmann::json& row : services) {
    if (!row.is_object() || !row.contains("id") || !row["id"].is_string()) continue;
    const std::string id = row["id"].get<std::string>();
    const bool llm = row.contains("llm");
    for (const char* name : llm ? std::vector<const char*>{"requests.ttft_ms.p99",
                                                           "requests.tpot_ms.p99"}
                                : std::vector<const char*>{"requests.latency_ms.p99"}) {
      const MetricInfo* m = metric_catalogue().find(name);
      rows.push_back({std::string(name) + " for " + id, m->label + " " + id, m->digits, false});
    }
  }
  return rows;
}

std::vector<CompareMetric> kind_rows(const nlohmann::json& summary) {
  std::vector<CompareMetric> rows;
  const auto at = nlohmann::json::json_pointer("/metrics/by_kind");
  if (!summary.contains(at) || !summary.at(at).is_object()) return rows;
  // A service's completion time is its lifetime, which the scenario sets: not a result.
  struct KindRow {
    const char* metric;
    const char* label;
  };
  static constexpr KindRow kBatchRows[] = {{"jct_s.mean", "JCT mean (s)"},
                                           {"jct_s.p95", "JCT p95 (s)"},
                                           {"queueing_delay_s.p95", "queueing p95 (s)"}};
  static constexpr KindRow kServiceRows[] = {{"queueing_delay_s.p95", "start delay p95 (s)"}};
  for (const auto& [kind, values] : summary.at(at).items()) {
    if (!values.is_object()) continue;
    const std::span<const KindRow> shown = kind == "services"
                                               ? std::span<const KindRow>(kServiceRows)
                                               : std::span<const KindRow>(kBatchRows);
    for (const KindRow& row : shown) {
      rows.push_back({"by_kind." + kind + "." + row.metric, kind + " " + row.label, 1, false});
    }
  }
  return rows;
}

std::optional<double> compare_value(const nlohmann::json& summary, const std::string& name) {
  const BoundSubject subject = parse_bound_subject(name, "compare", name);
  if (!subject.endpoints) return read_metric(summary, name).value;
  const auto values = endpoint_values(summary, subject.metric, *subject.endpoints);
  return values.empty() ? std::nullopt : values.front().value.value;
}

bool reports_shares(const Scenario& scenario) {
  return scenario.model->limits_compute_shares() || scenario.placement->share_aware;
}

}  // namespace gpumux
