#include "analysis/metrics/metric_catalogue.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/output/number_text.h"
#include "sim/core/queue_reason.h"

namespace gpumux {

MetricInfo MetricInfo::in_tables(std::string table_label, int table_digits, bool is_count) const {
  MetricInfo m = *this;
  m.label = std::move(table_label);
  m.digits = table_digits;
  m.count = is_count;
  return m;
}

MetricInfo MetricInfo::null_means(std::string meaning) const {
  MetricInfo m = *this;
  m.null_meaning = std::move(meaning);
  return m;
}

MetricInfo MetricInfo::in_summary(int place, std::string line_label, SummaryLineText text) const {
  MetricInfo m = *this;
  m.summary_place = place;
  m.summary_label = std::move(line_label);
  m.summary_text = text;
  return m;
}

namespace {

using nlohmann::json;

constexpr const char* kStats[] = {"count", "mean", "p50", "p90", "p95", "p99", "max"};

// How a distribution shows: the tables' label of a statistic ("JCT p95 (s)" is prefix "JCT",
// unit "s"), with `digits`, for the statistics in `table_stats`; the printed summary's row.
struct DistributionShown {
  std::string table_prefix;
  std::vector<std::string> table_stats;
  int digits = 0;
  std::string summary_row;  // "" for none
};

// A statistic of a distribution: its count is a number of jobs (or events), never an objective.
void add_distribution(std::vector<MetricInfo>& out, const std::string& base,
                      const std::string& unit, Better better, const std::string& what,
                      const std::string& null_meaning, const DistributionShown& shown = {}) {
  for (const std::string stat : kStats) {
    MetricInfo m;
    if (stat == "count") {
      m = {base + ".count", "jobs", Better::kNeither, "how many " + what + " summarised"};
    } else {
      m = {base + "." + stat, unit, better, what + ", " + stat};
      if (std::find(shown.table_stats.begin(), shown.table_stats.end(), stat) !=
          shown.table_stats.end()) {
        m = m.in_tables(shown.table_prefix + " " + stat + " (" + unit + ")", shown.digits);
      }
      m.summary_row = shown.summary_row;
      m.summary_row_digits = shown.digits;
    }
    out.push_back(m.null_means(null_meaning));
  }
}

// Appends `group`, each entry with `null_meaning` unless it names its own.
void add_group(std::vector<MetricInfo>& out, std::vector<MetricInfo> group,
               const std::string& null_meaning) {
  const std::string by_default = MetricInfo{}.null_meaning;
  for (MetricInfo& m : group) {
    out.push_back(m.null_meaning == by_default ? m.null_means(null_meaning) : m);
  }
}

// The printed summary's numbers (its lines below).
std::string dump(const json& v) { return v.dump(); }
std::string percent(const json& v) { return fixed_or_na(v, 1, 100) + " %"; }
std::string fixed(const json& v, int digits) { return fixed_text(v.get<double>(), digits); }
bool positive(const json& v) { return v.get<std::uint64_t>() > 0; }

std::string duration_text(const json& value) {
  if (value.is_null()) return "n/a";
  const double s = value.get<double>();
  if (s < 120) return fixed_text(s, 1) + " s";
  if (s < 7200) return fixed_text(s / 60, 1) + " min";
  return fixed_text(s / 3600, 2) + " h";
}

// The printed summary's lines, by their place: each reads the metrics it shows.
std::string jobs_line(const json& m) {
  const json& jobs = m["jobs"];
  std::string text = dump(jobs["finished"]) + " / " + dump(jobs["arrived"]);
  if (positive(jobs["rejected"])) text += "  (" + dump(jobs["rejected"]) + " rejected)";
  const auto unfinished = jobs["unfinished_queued"].get<std::uint64_t>() +
                          jobs["unfinished_running"].get<std::uint64_t>();
  if (positive(jobs["failed"])) text += "  (" + dump(jobs["failed"]) + " failed)";
  if (unfinished > 0) text += "  (" + std::to_string(unfinished) + " unfinished at the time limit)";
  return text;
}

std::string slot_occupancy_line(const json& m) {
  if (!m.contains("slots")) return "";
  std::string occupancy;
  for (const auto& [name, p] : m["slots"]["profiles"].items()) {
    occupancy += (occupancy.empty() ? "" : ", ") + name + " " + percent(p["occupancy"]);
  }
  return occupancy;
}

std::string requests_line(const json& m) {
  if (!m.contains("requests")) return "";
  const json& rq = m["requests"];
  const std::size_t services = rq["services"].size();
  return "requests (" + std::to_string(services) + (services == 1 ? " service, " : " services, ") +
         rq["mode"].get<std::string>() + " mode)  " + dump(rq["count"]) + " arrived, " +
         dump(rq["served"]) + " served, " + dump(rq["dropped"]) + " dropped, " +
         dump(rq["timed_out"]) + " timed out, " + dump(rq["unfinished"]) + " unfinished; " +
         fixed_or_na(rq["served_per_s"], 1) + " served/s";
}

// LLM endpoints (docs/llm-serving.md "Metrics"): TTFT and TPOT, then tokens/s and goodput.
std::string llm_latency_line(const json& m) {
  if (!m.contains("requests") || !m["requests"].contains("ttft_ms")) return "";
  const json& rq = m["requests"];
  auto ms = [](const json& v) { return fixed_or_na(v, 1); };
  return "TTFT p50 " + ms(rq["ttft_ms"]["p50"]) + ", p99 " + ms(rq["ttft_ms"]["p99"]) +
         "; TPOT p50 " + ms(rq["tpot_ms"]["p50"]) + ", p99 " + ms(rq["tpot_ms"]["p99"]) +
         "; ITL p50 " + ms(rq["itl_ms"]["p50"]);
}

std::string llm_throughput_line(const json& m) {
  if (!m.contains("requests") || !m["requests"].contains("ttft_ms")) return "";
  const json& rq = m["requests"];
  std::string text = fixed_or_na(rq["output_tokens_per_s"], 1) + " output tokens/s, " +
                     fixed_or_na(rq["goodput_per_s"], 2) + " goodput requests/s";
  if (positive(rq["refused"])) text += "  (" + dump(rq["refused"]) + " refused)";
  if (positive(rq["preemptions"])) text += "  (" + dump(rq["preemptions"]) + " preemptions)";
  return text;
}

std::string request_latency_line(const json& m) {
  if (!m.contains("requests")) return "";
  const json& rq = m["requests"];
  const json& l = rq["latency_ms"];
  auto ms = [](const json& v) { return fixed_or_na(v, 2); };
  return "mean " + ms(l["mean"]) + ", p50 " + ms(l["p50"]) + ", p95 " + ms(l["p95"]) + ", p99 " +
         ms(l["p99"]) + "; SLO attainment " +
         (rq["slo_attainment"].is_null()
              ? std::string("n/a (no SLO)")
              : fixed_text(100 * rq["slo_attainment"].get<double>(), 2) + " %");
}

// Requests count from a service's first start: a late start hides in the latency above.
std::string start_delay_line(const json& m) {
  if (!m.contains("requests")) return "";
  const json& rq = m["requests"];
  return "mean " + fixed(rq["start_delay_s"]["mean"], 1) + ", max " +
         fixed(rq["start_delay_s"]["max"], 1) + "; " + dump(rq["services_unstarted"]) +
         " never started";
}

std::vector<MetricInfo> build() {
  const Better lo = Better::kLower;
  const Better hi = Better::kHigher;
  const Better no = Better::kNeither;
  using M = MetricInfo;
  std::vector<MetricInfo> m = {
      M{"jobs.arrived", "jobs", no, "jobs that arrived over the run"}.in_tables("jobs arrived", 0,
                                                                                true),
      M{"jobs.finished", "jobs", no, "jobs that finished"}
          .in_tables("jobs finished", 0, true)
          .in_summary(1, "jobs finished / arrived", jobs_line),
      M{"jobs.rejected", "jobs", lo, "jobs no GPU of the cluster could ever take"}.in_tables(
          "jobs rejected", 0, true),
      M{"jobs.failed", "jobs", lo, "jobs that failed after their retries"}.in_tables("jobs failed",
                                                                                     0, true),
      M{"jobs.unfinished_queued", "jobs", lo, "jobs still queued when the run stopped"}.in_tables(
          "jobs unfinished (queued)", 0, true),
      M{"jobs.unfinished_running", "jobs", lo, "jobs still running when the run stopped"}.in_tables(
          "jobs unfinished (running)", 0, true),
      {"gpus", "GPUs", no, "GPUs of the cluster"},
      M{"makespan_s", "s", lo, "first arrival to last end"}.in_summary(
          2, "makespan", [](const json& v) { return duration_text(v["makespan_s"]); }),
      M{"gpu_allocation_ratio", "share", hi, "time-average share of GPUs with a job"}
          .in_tables("GPU allocation ratio", 3)
          .in_summary(3, "GPU allocation ratio",
                      [](const json& v) { return percent(v["gpu_allocation_ratio"]); }),
      M{"sm_busy_utilization", "share", hi, "time-average share of GPU time with SMs busy"}
          .in_tables("SM-busy utilization", 3)
          .in_summary(4, "SM-busy utilization",
                      [](const json& v) {
                        return percent(v["sm_busy_utilization"]) + "  (" +
                               percent(v["sm_busy_per_allocated_gpu"]) + " of GPUs in use)";
                      }),
      {"sm_busy_per_allocated_gpu", "share", hi, "SM-busy time per allocated GPU time"},
      M{"sharing_overhead", "share", lo, "share of GPU time lost to sharing (context switches)"}
          .in_summary(5, "sharing overhead",
                      [](const json& v) {
                        return percent(v["sharing_overhead"]) + "  (" +
                               fixed(v["sharing_overhead_gpu_hours"], 1) + " GPU-hours)";
                      }),
      {"sharing_overhead_gpu_hours", "GPU-hours", lo, "GPU time lost to sharing"},
      {"peak_allocated_gpus", "GPUs", lo, "most GPUs in use at once"},
      M{"mean_allocated_gpus", "GPUs", lo, "time-average GPUs in use"}
          .in_tables("mean GPUs in use", 2)
          .in_summary(18, "GPUs in use (mean / peak)",
                      [](const json& v) {
                        return fixed_or_na(v["mean_allocated_gpus"], 1) + " / " +
                               dump(v["peak_allocated_gpus"]) + " of " + dump(v["gpus"]);
                      }),
      {"finished_work_gpu_hours", "GPU-hours", no, "exclusive work of the finished jobs"},
  };
  const std::string no_faults = "no out-of-memory events";
  add_group(m,
            {
                M{"failures.memory_faults", "events", lo, "out-of-memory events"}.in_summary(
                    6, "out-of-memory events",
                    [](const json& v) {
                      const json& f = v["failures"];
                      if (!positive(f["memory_faults"])) return std::string();
                      return dump(f["memory_faults"]) + "  (" + dump(f["memory_fault_kills"]) +
                             " kills)";
                    }),
                M{"failures.jobs_killed", "jobs", lo,
                  "job kills by out-of-memory events (a job may count twice)"}
                    .in_summary(8, "jobs killed",
                                [](const json& v) {
                                  const json& f = v["failures"];
                                  if (!positive(f["jobs_killed"])) return std::string();
                                  return dump(f["jobs_killed"]) + "  (" + dump(f["jobs_failed"]) +
                                         " jobs failed, " + fixed(f["lost_work_gpu_hours"], 1) +
                                         " GPU-hours lost)";
                                }),
                M{"failures.memory_fault_kills", "jobs", lo, "kills by memory faults"}.in_tables(
                    "OOM kills", 0, true),
                M{"failures.fatal_faults", "events", lo,
                  "fatal faults (MPS: every client of the server dies)"}
                    .in_summary(7, "fatal GPU faults",
                                [](const json& v) {
                                  const json& f = v["failures"];
                                  if (!positive(f["fatal_faults"])) return std::string();
                                  return dump(f["fatal_faults"]) + "  (" +
                                         dump(f["fatal_fault_kills"]) + " kills)";
                                }),
                {"failures.fatal_fault_kills", "jobs", lo, "kills by fatal faults"},
                {"failures.jobs_failed", "jobs", lo, "jobs failed after their retries"},
                {"failures.lost_work_gpu_hours", "GPU-hours", lo, "work lost to kills"},
            },
            no_faults);
  add_distribution(m, "failures.cascade_size", "jobs", lo, "jobs killed per out-of-memory event",
                   no_faults);
  for (MetricInfo r : std::vector<MetricInfo>{
           M{"reconfigurations.count", "events", lo, "MIG repartitions"}.in_summary(
               9, "reconfigurations",
               [](const json& v) {
                 const json& r = v["reconfigurations"];
                 if (!positive(r["count"])) return std::string();
                 return dump(r["count"]) + "  (" + fixed(r["drain_gpu_hours"], 2) +
                        " GPU-hours draining, " + fixed(r["reconfiguration_gpu_hours"], 2) +
                        " reconfiguring)";
               }),
           {"reconfigurations.drain_gpu_hours", "GPU-hours", lo,
            "GPU time drained for repartitions"},
           {"reconfigurations.reconfiguration_gpu_hours", "GPU-hours", lo,
            "GPU time spent repartitioning"},
           M{"reconfigurations.migrations", "jobs", lo, "jobs migrated by repartitions"}.in_summary(
               10, "jobs migrated",
               [](const json& v) {
                 const json& r = v["reconfigurations"];
                 if (!positive(r["count"]) || !positive(r["migrations"])) return std::string();
                 return dump(r["migrations"]) + "  (" + fixed(r["checkpoint_gpu_hours"], 2) +
                        " GPU-hours checkpointing, " +
                        fixed(r["migration_lost_work_gpu_hours"], 2) + " GPU-hours of work lost)";
               }),
           {"reconfigurations.migration_lost_work_gpu_hours", "GPU-hours", lo,
            "work lost to migrations"},
           {"reconfigurations.checkpoint_gpu_hours", "GPU-hours", lo,
            "GPU time spent checkpointing for migrations"},
       }) {
    m.push_back(r);
  }
  const std::string no_finished = "no finished jobs";
  add_distribution(m, "jct_s", "s", lo, "job completion time (finished jobs)", no_finished,
                   {"JCT", {"mean", "p50", "p95", "p99"}, 1, "JCT (s)"});
  add_distribution(m, "queueing_delay_s", "s", lo, "queueing delay (finished jobs)", no_finished,
                   {"queueing", {"mean", "p95"}, 1, "queueing delay (s)"});
  const std::string no_runtime = "no finished jobs with a non-zero runtime";
  add_distribution(m, "slowdown", "ratio", lo, "completion time / exclusive runtime", no_runtime,
                   {"", {}, 2, "slowdown (x)"});
  add_distribution(m, "sharing_slowdown", "ratio", lo, "running time / exclusive runtime",
                   no_runtime, {"", {}, 2, "sharing slowdown (x)"});
  // The same per kind of job (kind_metrics.h), in runs where two kinds or more arrived.
  const std::string no_kind = "no finished job of this kind, or the run has one kind of job";
  add_group(m,
            {{"by_kind.*.arrived", "jobs", no,
              "jobs of one kind (training, inference, services) that arrived"},
             {"by_kind.*.finished", "jobs", no, "jobs of one kind that finished"}},
            no_kind);
  add_distribution(m, "by_kind.*.jct_s", "s", lo,
                   "completion time of one kind of job (training, inference, services)", no_kind);
  add_distribution(m, "by_kind.*.queueing_delay_s", "s", lo,
                   "queueing delay of one kind of job (services: before serving)", no_kind);
  add_distribution(m, "by_kind.*.slowdown", "ratio", lo,
                   "completion time / exclusive runtime of one kind of job", no_kind);
  add_group(
      m,
      {
          M{"slots.slice_utilization", "share", hi, "share of compute slices busy"}.in_summary(
              11, "slice utilization",
              [](const json& v) {
                if (!v.contains("slots")) return std::string();
                const json& sl = v["slots"];
                return percent(sl["slice_utilization"]) + "  (memory " +
                       percent(sl["memory_allocation_share"]) + "; free " +
                       percent(sl["free_slice_share"]) + ", unavailable " +
                       percent(sl["unavailable_slice_share"]) + ")";
              }),
          {"slots.memory_allocation_share", "share", hi, "share of slot memory held by jobs"},
          {"slots.free_slice_share", "share", no, "share of compute slices free"},
          {"slots.unavailable_slice_share", "share", lo,
           "share of slices unavailable (repartitioning)"},
          M{"slots.fragmentation", "share", lo, "share of slices free but too small for the queue"}
              .in_summary(12, "slice fragmentation",
                          [](const json& v) {
                            if (!v.contains("slots")) return std::string();
                            return percent(v["slots"]["fragmentation"]) +
                                   "  (free slices no queued job fits)";
                          }),
          {"slots.mean_split_gpus", "GPUs", no, "time-average GPUs split into slots"},
          {"slots.slice_hours", "slice-hours", no, "compute-slice time of the run"},
          {"slots.profiles.*.mean_instances", "instances", no,
           "time-average instances of a profile"},
          {"slots.profiles.*.mean_busy", "instances", no,
           "time-average busy instances of a profile"},
          M{"slots.profiles.*.occupancy", "share", hi, "busy share of a profile's instances"}
              .in_summary(14, "slot occupancy", slot_occupancy_line),
          M{"slots.fit_blocked.jobs", "jobs", lo, "jobs that waited for a slot of their size"}
              .in_summary(13, "fit-blocked jobs",
                          [](const json& v) {
                            if (!v.contains("slots")) return std::string();
                            const json& fb = v["slots"]["fit_blocked"];
                            return dump(fb["jobs"]) + "  (" + fixed(fb["wait_job_hours"], 1) +
                                   " job-hours queued with free slots, none fitting)";
                          }),
          {"slots.fit_blocked.wait_job_hours", "job-hours", lo, "time jobs waited for such a slot"},
      },
      "no slot time (no slices, instances or jobs over the run)");
  add_group(
      m,
      {
          M{"requests.count", "requests", no, "inference requests that arrived"}.in_summary(
              15, "", requests_line),
          {"requests.served", "requests", no, "requests served"},
          {"requests.dropped", "requests", lo, "requests dropped at a full queue"},
          {"requests.timed_out", "requests", lo, "requests past their timeout"},
          {"requests.unfinished", "requests", lo, "requests in flight when the run stopped"},
          M{"requests.latency_ms.mean", "ms", lo, "request latency, mean"}.in_summary(
              16, "request latency (ms)", request_latency_line),
          M{"requests.latency_ms.p50", "ms", lo, "request latency, p50"}.in_tables(
              "request latency p50 (ms)", 2),
          M{"requests.latency_ms.p95", "ms", lo, "request latency, p95"}.in_tables(
              "request latency p95 (ms)", 2),
          M{"requests.latency_ms.p99", "ms", lo, "request latency, p99"}.in_tables(
              "request latency p99 (ms)", 2),
          M{"requests.slo_attainment", "share", hi, "share of ended requests within their SLO"}
              .in_tables("request SLO attainment", 4)
              .null_means("no request with an SLO ended"),
          {"requests.start_delay_s.max", "s", lo,
           "longest wait of a service from arrival to its first start (never started: to the "
           "run's end)"},
          M{"requests.start_delay_s.mean", "s", lo,
            "mean wait of the services from arrival to their first start"}
              .in_summary(17, "service start delay (s)", start_delay_line),
          {"requests.served_per_s", "requests/s", hi,
           "requests served per second, first service arrival to the run's end"},
          {"requests.services_unstarted", "services", lo,
           "services that never started (rejected, or queued at the run's end)"},
      },
      "no request served");
  add_group(
      m,
      {
          M{"requests.ttft_ms.p50", "ms", lo, "LLM time to first token, p50"}
              .in_tables("TTFT p50 (ms)", 1)
              .in_summary(19, "LLM latency (ms)", llm_latency_line),
          {"requests.ttft_ms.p90", "ms", lo, "LLM time to first token, p90"},
          M{"requests.ttft_ms.p99", "ms", lo, "LLM time to first token, p99"}.in_tables(
              "TTFT p99 (ms)", 1),
          {"requests.ttft_ms.p95", "ms", lo, "LLM time to first token, p95"},
          {"requests.ttft_ms.mean", "ms", lo, "LLM time to first token, mean"},
          M{"requests.tpot_ms.p50", "ms", lo,
            "LLM time per output token after the first (per request), p50"}
              .in_tables("TPOT p50 (ms)", 2),
          {"requests.tpot_ms.p90", "ms", lo, "LLM time per output token, p90"},
          {"requests.tpot_ms.p95", "ms", lo, "LLM time per output token, p95"},
          M{"requests.tpot_ms.p99", "ms", lo, "LLM time per output token, p99"}.in_tables(
              "TPOT p99 (ms)", 2),
          {"requests.tpot_ms.mean", "ms", lo, "LLM time per output token, mean"},
          {"requests.itl_ms.p50", "ms", lo, "LLM inter-token latency (every gap), p50"},
          {"requests.itl_ms.p90", "ms", lo, "LLM inter-token latency, p90"},
          {"requests.itl_ms.p95", "ms", lo, "LLM inter-token latency, p95"},
          {"requests.itl_ms.p99", "ms", lo, "LLM inter-token latency, p99"},
          {"requests.itl_ms.mean", "ms", lo, "LLM inter-token latency, mean"},
          M{"requests.output_tokens_per_s", "tokens/s", hi,
            "LLM output tokens per second, first arrival to last finish"}
              .in_tables("output tokens/s", 1)
              .in_summary(20, "LLM throughput", llm_throughput_line),
          {"requests.total_tokens_per_s", "tokens/s", hi,
           "LLM prompt + output tokens per second"},
          {"requests.requests_per_s", "requests/s", hi, "LLM requests served per second"},
          M{"requests.goodput_per_s", "requests/s", hi,
            "LLM requests per second meeting both their endpoint's TTFT and TPOT objectives"}
              .in_tables("goodput (requests/s)", 2),
          {"requests.goodput_share", "share", hi,
           "share of arrived LLM requests meeting both objectives"},
          {"requests.refused", "requests", lo,
           "LLM requests refused (longer than max_model_len or the KV cache)"},
          {"requests.preemptions", "events", lo,
           "LLM sequences preempted for KV-cache room (recomputed later)"},
          {"requests.prompt_tokens", "tokens", no, "LLM prompt tokens of the served requests"},
          {"requests.output_tokens", "tokens", no, "LLM output tokens of the served requests"},
          {"requests.iterations", "iterations", no, "LLM engine iterations (forward passes)"},
          {"requests.busy_s", "s", no, "LLM engines' time running iterations, summed"},
          {"requests.mean_batch", "sequences", no, "LLM running sequences, mean over busy time"},
          {"requests.peak_batch", "sequences", no, "LLM running sequences, the most at once"},
          {"requests.kv_cache_use", "share", no, "LLM KV-cache blocks in use, mean over busy time"},
      },
      "no LLM endpoint served a request");
  add_group(
      m,
      {
          M{"shares.allocation_ratio", "share", hi,
            "time-average share of GPU compute allocated (gpu_milli)"}
              .in_tables("GPU-share allocation ratio", 3),
          {"shares.peak_allocation_ratio", "share", no, "peak share of GPU compute allocated"},
          M{"shares.fragmentation_gpus", "GPUs", lo, "FGD fragmentation, in GPUs"}.in_tables(
              "fragmentation (GPUs)", 1),
          M{"shares.fragmentation_of_idle", "share", lo, "FGD fragmentation as a share of idle GPU"}
              .in_tables("fragmentation / idle", 3),
          {"shares.typical_job_kinds", "kinds", no, "job kinds of the typical workload"},
      },
      "no job arrived, or no idle GPU share to fragment");
  for (MetricInfo d : std::vector<MetricInfo>{
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
    m.push_back(d);
  }
  const std::string nothing_queued = "no job queued over the run";
  m.push_back(M{"queued_by_reason.total_job_s", "job-s", lo,
                "queued jobs x time, summed over the run (the queue's integral)"}
                  .null_means(nothing_queued));
  for (std::string_view reason : kQueueReasonNames) {
    const std::string base = "queued_by_reason." + std::string(reason);
    m.push_back(M{base + ".job_s", "job-s", lo,
                  "queued job-seconds while the head waited for: " + std::string(reason)}
                    .null_means(nothing_queued));
    m.push_back(M{base + ".share", "share", no,
                  "share of queued job-seconds while the head waited for: " + std::string(reason)}
                    .null_means(nothing_queued));
  }
  // Derived metrics last.
  std::stable_partition(m.begin(), m.end(), [](const MetricInfo& i) { return !i.derived; });
  return m;
}

}  // namespace

bool MetricInfo::matches(std::string_view candidate) const {
  const std::string& pattern = name;
  const auto star = pattern.find('*');
  if (star == std::string::npos) return pattern == candidate;
  const std::string_view prefix(pattern.data(), star);
  const std::string_view suffix(pattern.data() + star + 1, pattern.size() - star - 1);
  return candidate.size() > prefix.size() + suffix.size() &&
         candidate.substr(0, prefix.size()) == prefix &&
         candidate.substr(candidate.size() - suffix.size()) == suffix;
}

MetricDomain metric_domain(const std::string& name) {
  const std::size_t selector = name.find(" for ");
  const MetricInfo* m = metric_catalogue().find(
      selector == std::string::npos ? std::string_view(name) : std::string_view(name).substr(0, selector));
  if (!m) return {-INFINITY, INFINITY};
  return {0.0, m->unit == "share" ? 1.0 : INFINITY};
}

const Registry<MetricInfo>& metric_catalogue() {
  static const Registry<MetricInfo> catalogue("metric", build());
  return catalogue;
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

const char* better_name(Better better) {
  switch (better) {
    case Better::kLower:
      return "lower";
    case Better::kHigher:
      return "higher";
    case Better::kNeither:
      break;
  }
  return "neither";
}

std::string metric_catalogue_text() {
  std::string out =
      "metrics (dotted paths under `metrics` in summary.json; * is a name the scenario "
      "chooses):\n";
  for (const auto& m : metric_catalogue()) {
    if (m.derived) continue;
    std::string line = "  " + m.name + "  [" + m.unit + "]  " + m.summary;
    if (m.better != Better::kNeither) {
      line += std::string(" (") + better_name(m.better) + " is better)";
    }
    out += line + "\n";
  }
  out += "derived, for plan --objective (computed from summary.json):\n";
  for (const auto& m : metric_catalogue()) {
    if (m.derived) out += "  " + m.name + "  [" + m.unit + "]  " + m.summary + "\n";
  }
  out += "aliases (plan --objective):";
  for (const auto& a : metric_aliases()) out += " " + a.alias + "=" + a.name;
  return out + "\n";
}

}  // namespace gpumux
