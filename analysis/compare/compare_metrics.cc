#include "analysis/compare/compare_metrics.h"

#include "scenarios/scenario.h"
#include "sim/placement/placement_registry.h"

namespace gpumux {

std::vector<CompareMetric> compare_metrics(bool services, bool shares) {
  std::vector<CompareMetric> rows = {
      {"gpu_allocation_ratio", "GPU allocation ratio", 3, false},
      {"sm_busy_utilization", "SM-busy utilization", 3, false},
      {"jct_s.mean", "JCT mean (s)", 1, false},
      {"jct_s.p50", "JCT p50 (s)", 1, false},
      {"jct_s.p95", "JCT p95 (s)", 1, false},
      {"jct_s.p99", "JCT p99 (s)", 1, false},
      {"queueing_delay_s.mean", "queueing mean (s)", 1, false},
      {"queueing_delay_s.p95", "queueing p95 (s)", 1, false},
  };
  if (shares) {
    rows.push_back({"shares.allocation_ratio", "GPU-share allocation ratio", 3, false});
    rows.push_back({"shares.fragmentation_gpus", "fragmentation (GPUs)", 1, false});
    rows.push_back({"shares.fragmentation_of_idle", "fragmentation / idle", 3, false});
  }
  if (services) {
    rows.push_back({"requests.latency_ms.p50", "request latency p50 (ms)", 2, false});
    rows.push_back({"requests.latency_ms.p95", "request latency p95 (ms)", 2, false});
    rows.push_back({"requests.latency_ms.p99", "request latency p99 (ms)", 2, false});
    rows.push_back({"requests.slo_attainment", "request SLO attainment", 4, false});
  }
  for (CompareMetric m : std::vector<CompareMetric>{
           {"jobs.arrived", "jobs arrived", 0, true},
           {"jobs.finished", "jobs finished", 0, true},
           {"failures.memory_fault_kills", "OOM kills", 0, true},
           {"jobs.failed", "jobs failed", 0, true},
           {"jobs.rejected", "jobs rejected", 0, true},
           {"jobs.unfinished_queued", "jobs unfinished (queued)", 0, true},
           {"jobs.unfinished_running", "jobs unfinished (running)", 0, true},
           {"mean_allocated_gpus", "mean GPUs in use", 2, false},
       }) {
    rows.push_back(m);
  }
  return rows;
}

bool reports_shares(const Scenario& scenario) {
  const bool limits = scenario.model->limits_compute_shares();
  const PlacementInfo* placement = resolve_placement(scenario.placement, limits);
  return limits || (placement && placement->share_aware);
}

}  // namespace gpumux
