#include "analysis/compare/compare_metrics.h"

#include "analysis/metrics/metric_catalogue.h"
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

bool reports_shares(const Scenario& scenario) {
  return scenario.model->limits_compute_shares() || scenario.placement->share_aware;
}

}  // namespace gpumux
