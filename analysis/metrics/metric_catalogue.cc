#include "analysis/metrics/metric_catalogue.h"

#include <algorithm>

#include "sim/core/queue_reason.h"

namespace gpumux {

namespace {

constexpr const char* kStats[] = {"count", "mean", "p50", "p90", "p95", "p99", "max"};

// A statistic of a distribution: its count is a number of jobs (or events), never an objective.
void add_distribution(std::vector<MetricInfo>& out, const std::string& base,
                      const std::string& unit, Better better, const std::string& what) {
  for (const std::string stat : kStats) {
    if (stat == "count") {
      out.push_back(
          {base + ".count", "jobs", Better::kNeither, "how many " + what + " summarised"});
    } else {
      out.push_back({base + "." + stat, unit, better, what + ", " + stat});
    }
  }
}

std::vector<MetricInfo> build() {
  const Better lo = Better::kLower;
  const Better hi = Better::kHigher;
  const Better no = Better::kNeither;
  std::vector<MetricInfo> m = {
      {"jobs.arrived", "jobs", no, "jobs that arrived over the run"},
      {"jobs.finished", "jobs", no, "jobs that finished"},
      {"jobs.rejected", "jobs", lo, "jobs no GPU of the cluster could ever take"},
      {"jobs.failed", "jobs", lo, "jobs that failed after their retries"},
      {"jobs.unfinished_queued", "jobs", lo, "jobs still queued when the run stopped"},
      {"jobs.unfinished_running", "jobs", lo, "jobs still running when the run stopped"},
      {"gpus", "GPUs", no, "GPUs of the cluster"},
      {"makespan_s", "s", lo, "first arrival to last end"},
      {"gpu_allocation_ratio", "share", hi, "time-average share of GPUs with a job"},
      {"sm_busy_utilization", "share", hi, "time-average share of GPU time with SMs busy"},
      {"sm_busy_per_allocated_gpu", "share", hi, "SM-busy time per allocated GPU time"},
      {"sharing_overhead", "share", lo, "share of GPU time lost to sharing (context switches)"},
      {"sharing_overhead_gpu_hours", "GPU-hours", lo, "GPU time lost to sharing"},
      {"peak_allocated_gpus", "GPUs", lo, "most GPUs in use at once"},
      {"mean_allocated_gpus", "GPUs", lo, "time-average GPUs in use"},
      {"finished_work_gpu_hours", "GPU-hours", no, "exclusive work of the finished jobs"},
      {"failures.memory_faults", "events", lo, "out-of-memory events"},
      {"failures.jobs_killed", "jobs", lo,
       "job kills by out-of-memory events (a job may count twice)"},
      {"failures.memory_fault_kills", "jobs", lo, "kills by memory faults"},
      {"failures.fatal_faults", "events", lo,
       "fatal faults (MPS: every client of the server dies)"},
      {"failures.fatal_fault_kills", "jobs", lo, "kills by fatal faults"},
      {"failures.jobs_failed", "jobs", lo, "jobs failed after their retries"},
      {"failures.lost_work_gpu_hours", "GPU-hours", lo, "work lost to kills"},
  };
  add_distribution(m, "failures.cascade_size", "jobs", lo, "jobs killed per out-of-memory event");
  for (MetricInfo r : std::vector<MetricInfo>{
           {"reconfigurations.count", "events", lo, "MIG repartitions"},
           {"reconfigurations.drain_gpu_hours", "GPU-hours", lo,
            "GPU time drained for repartitions"},
           {"reconfigurations.reconfiguration_gpu_hours", "GPU-hours", lo,
            "GPU time spent repartitioning"},
           {"reconfigurations.migrations", "jobs", lo, "jobs migrated by repartitions"},
           {"reconfigurations.migration_lost_work_gpu_hours", "GPU-hours", lo,
            "work lost to migrations"},
           {"reconfigurations.checkpoint_gpu_hours", "GPU-hours", lo,
            "GPU time spent checkpointing for migrations"},
       }) {
    m.push_back(r);
  }
  add_distribution(m, "jct_s", "s", lo, "job completion time (finished jobs)");
  add_distribution(m, "queueing_delay_s", "s", lo, "queueing delay (finished jobs)");
  add_distribution(m, "slowdown", "ratio", lo, "completion time / exclusive runtime");
  add_distribution(m, "sharing_slowdown", "ratio", lo, "running time / exclusive runtime");
  for (MetricInfo s : std::vector<MetricInfo>{
           {"slots.slice_utilization", "share", hi, "share of compute slices busy"},
           {"slots.memory_allocation_share", "share", hi, "share of slot memory held by jobs"},
           {"slots.free_slice_share", "share", no, "share of compute slices free"},
           {"slots.unavailable_slice_share", "share", lo,
            "share of slices unavailable (repartitioning)"},
           {"slots.fragmentation", "share", lo, "share of slices free but too small for the queue"},
           {"slots.mean_split_gpus", "GPUs", no, "time-average GPUs split into slots"},
           {"slots.slice_hours", "slice-hours", no, "compute-slice time of the run"},
           {"slots.profiles.*.mean_instances", "instances", no,
            "time-average instances of a profile"},
           {"slots.profiles.*.mean_busy", "instances", no,
            "time-average busy instances of a profile"},
           {"slots.profiles.*.occupancy", "share", hi, "busy share of a profile's instances"},
           {"slots.fit_blocked.jobs", "jobs", lo, "jobs that waited for a slot of their size"},
           {"slots.fit_blocked.wait_job_hours", "job-hours", lo,
            "time jobs waited for such a slot"},
           {"requests.count", "requests", no, "inference requests that arrived"},
           {"requests.served", "requests", no, "requests served"},
           {"requests.dropped", "requests", lo, "requests dropped at a full queue"},
           {"requests.timed_out", "requests", lo, "requests past their timeout"},
           {"requests.unfinished", "requests", lo, "requests in flight when the run stopped"},
           {"requests.latency_ms.mean", "ms", lo, "request latency, mean"},
           {"requests.latency_ms.p50", "ms", lo, "request latency, p50"},
           {"requests.latency_ms.p95", "ms", lo, "request latency, p95"},
           {"requests.latency_ms.p99", "ms", lo, "request latency, p99"},
           {"requests.slo_attainment", "share", hi, "share of ended requests within their SLO"},
           {"requests.start_delay_s.max", "s", lo,
            "longest wait of a service from arrival to its first start (never started: to the "
            "run's end)"},
           {"requests.start_delay_s.mean", "s", lo,
            "mean wait of the services from arrival to their first start"},
           {"requests.served_per_s", "requests/s", hi,
            "requests served per second, first service arrival to the run's end"},
           {"requests.services_unstarted", "services", lo,
            "services that never started (rejected, or queued at the run's end)"},
           {"shares.allocation_ratio", "share", hi,
            "time-average share of GPU compute allocated (gpu_milli)"},
           {"shares.peak_allocation_ratio", "share", no, "peak share of GPU compute allocated"},
           {"shares.fragmentation_gpus", "GPUs", lo, "FGD fragmentation, in GPUs"},
           {"shares.fragmentation_of_idle", "share", lo,
            "FGD fragmentation as a share of idle GPU"},
           {"shares.typical_job_kinds", "kinds", no, "job kinds of the typical workload"},
           {"oom_kill_share", "kills per job", lo,
            "out-of-memory kills per arrived job (failures.jobs_killed / jobs.arrived)", true},
           {"failed_share", "share", lo,
            "share of arrived jobs that failed after their retries (jobs.failed / jobs.arrived)",
            true},
           {"rejected_jobs", "jobs", lo, "jobs.rejected (every plan applies rejected_jobs<=0)",
            true},
           {"unfinished_jobs", "jobs", lo,
            "jobs still queued or running when the run stopped (every plan applies <=0)", true},
       }) {
    m.push_back(s);
  }
  m.push_back({"queued_by_reason.total_job_s", "job-s", lo,
               "queued jobs x time, summed over the run (the queue's integral)"});
  for (std::string_view reason : kQueueReasonNames) {
    const std::string base = "queued_by_reason." + std::string(reason);
    m.push_back({base + ".job_s", "job-s", lo,
                 "queued job-seconds while the head waited for: " + std::string(reason)});
    m.push_back({base + ".share", "share", no,
                 "share of queued job-seconds while the head waited for: " + std::string(reason)});
  }
  // Derived metrics last.
  std::stable_partition(m.begin(), m.end(), [](const MetricInfo& i) { return !i.derived; });
  return m;
}

bool matches(const std::string& pattern, std::string_view name) {
  const auto star = pattern.find('*');
  if (star == std::string::npos) return pattern == name;
  const std::string_view prefix(pattern.data(), star);
  const std::string_view suffix(pattern.data() + star + 1, pattern.size() - star - 1);
  return name.size() > prefix.size() + suffix.size() && name.substr(0, prefix.size()) == prefix &&
         name.substr(name.size() - suffix.size()) == suffix;
}

}  // namespace

const std::vector<MetricInfo>& metric_catalogue() {
  static const std::vector<MetricInfo> catalogue = build();
  return catalogue;
}

const MetricInfo* find_metric(std::string_view name) {
  for (const auto& m : metric_catalogue()) {
    if (matches(m.name, name)) return &m;
  }
  return nullptr;
}

const std::vector<MetricAlias>& metric_aliases() {
  static const std::vector<MetricAlias> aliases = [] {
    std::vector<MetricAlias> a;
    for (const std::string s : {"mean", "p50", "p90", "p95", "p99", "max"}) {
      a.push_back({"queue_" + s + "_s", "queueing_delay_s." + s});
    }
    for (const std::string s : {"mean", "p50", "p90", "p95", "p99", "max"}) {
      a.push_back({"jct_" + s + "_s", "jct_s." + s});
    }
    for (const std::string s : {"mean", "p50", "p95", "p99"}) {
      a.push_back({"request_" + s + "_ms", "requests.latency_ms." + s});
    }
    a.push_back({"slo_attainment", "requests.slo_attainment"});
    return a;
  }();
  return aliases;
}

std::string canonical_metric_name(const std::string& name) {
  for (const auto& a : metric_aliases()) {
    if (a.alias == name) return a.name;
  }
  return name;
}

std::string metric_catalogue_text() {
  std::string out =
      "metrics (dotted paths under `metrics` in summary.json; * is a name the scenario "
      "chooses):\n";
  auto direction = [](Better b) {
    return b == Better::kLower ? "lower is better" : b == Better::kHigher ? "higher is better" : "";
  };
  for (const auto& m : metric_catalogue()) {
    if (m.derived) continue;
    std::string line = "  " + m.name + "  [" + m.unit + "]  " + m.description;
    if (m.better != Better::kNeither) line += std::string(" (") + direction(m.better) + ")";
    out += line + "\n";
  }
  out += "derived, for plan --objective (computed from summary.json):\n";
  for (const auto& m : metric_catalogue()) {
    if (m.derived) out += "  " + m.name + "  [" + m.unit + "]  " + m.description + "\n";
  }
  out += "aliases (plan --objective):";
  for (const auto& a : metric_aliases()) out += " " + a.alias + "=" + a.name;
  return out + "\n";
}

}  // namespace gpumux
