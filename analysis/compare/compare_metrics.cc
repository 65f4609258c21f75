#include "analysis/compare/compare_metrics.h"

#include <utility>

#include "analysis/metrics/metric_format.h"
#include "scenarios/scenario.h"
#include "sim/placement/registry.h"

namespace gpumux {

std::vector<CompareMetric> compare_metrics(bool services, bool shares) {
  std::vector<std::pair<const char*, const char*>> rows = {
      {"gpu_allocation_ratio", "GPU allocation ratio"},
      {"sm_busy_utilization", "SM-busy utilization"},
      {"jct_s.mean", "JCT mean (s)"},
      {"jct_s.p50", "JCT p50 (s)"},
      {"jct_s.p95", "JCT p95 (s)"},
      {"jct_s.p99", "JCT p99 (s)"},
      {"queueing_delay_s.mean", "queueing mean (s)"},
      {"queueing_delay_s.p95", "queueing p95 (s)"},
  };
  if (shares) {
    rows.push_back({"shares.allocation_ratio", "GPU-share allocation ratio"});
    rows.push_back({"shares.fragmentation_gpus", "fragmentation (GPUs)"});
    rows.push_back({"shares.fragmentation_of_idle", "fragmentation / idle"});
  }
  if (services) {
    rows.push_back({"requests.latency_ms.p50", "request latency p50 (ms)"});
    rows.push_back({"requests.latency_ms.p95", "request latency p95 (ms)"});
    rows.push_back({"requests.latency_ms.p99", "request latency p99 (ms)"});
    rows.push_back({"requests.slo_attainment", "request SLO attainment"});
  }
  for (const auto& row : std::vector<std::pair<const char*, const char*>>{
           {"jobs.arrived", "jobs arrived"},
           {"jobs.finished", "jobs finished"},
           {"failures.memory_fault_kills", "OOM kills"},
           {"jobs.failed", "jobs failed"},
           {"jobs.rejected", "jobs rejected"},
           {"jobs.unfinished_queued", "jobs unfinished (queued)"},
           {"jobs.unfinished_running", "jobs unfinished (running)"},
           {"mean_allocated_gpus", "mean GPUs in use"},
       }) {
    rows.push_back(row);
  }
  std::vector<CompareMetric> metrics;
  for (const auto& [name, label] : rows) {
    // Every row has a format (metric_format.cc): a row added without one fails its test.
    const MetricFormat f = metric_format(name).value_or(MetricFormat{3, false});
    metrics.push_back({name, label, f.digits, f.count});
  }
  return metrics;
}

bool reports_shares(const Scenario& scenario) {
  return scenario.model->limits_compute_shares() || scenario.placement->share_aware;
}

}  // namespace gpumux
