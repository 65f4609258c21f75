// Request metrics of inference services (docs/services.md "Inference services"): listens to engine
// signals, runs one ServiceReplica per service job (request-level or analytic), and reports
// `metrics.requests` in summary.json. Only attached to runs that have services.
//
// Per service and overall: requests arrived (`count`), served, dropped (queue full, or the
// replica down or killed), timed out, unfinished (still held when its lifetime or the run
// ended); latency percentiles p50/p95/p99 (nearest rank on a 1%-wide log grid, reported at
// the bin's middle) and the exact mean, in ms (null when nothing was served); SLO attainment
// = requests served within slo_ms / (served + dropped + timed out), null without an SLO or
// without such requests. Overall attainment counts only services that have an SLO.
//
// Availability: a service's requests count from its first start, so a service that waits hours
// for a GPU looks fast. `start_delay_s` is the wait from a service's arrival to its first start;
// for one that never starts (rejected, or still queued at the run's end) the wait until then, a
// lower bound. Overall: its `max` and `mean` over services, and `services_unstarted`.
// Throughput: `served_per_s`, requests served per second from the first service's arrival to
// the run's end (null when that span is empty).
//
// LLM endpoints (sim/llm/llm_replica.h; docs/llm-serving.md "Metrics"), only when the run has
// one: per endpoint (`services[i].llm`) and pooled over them, TTFT, TPOT and inter-token latency
// (`ttft_ms`, `tpot_ms`, `itl_ms`: p50/p90/p95/p99 and mean), output and total tokens/s and
// requests/s over the endpoint's span (first measured arrival to last finish), goodput (requests
// meeting both the endpoint's TTFT and TPOT objectives, per second), refused requests,
// preemptions, iterations, mean batch size and KV-cache use over busy time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/metrics/llm_cdfs.h"
#include "scenarios/service_config.h"
#include "sim/llm/llm_gpu_group.h"
#include "sim/llm/llm_stats.h"
#include "sim/services/service_engine.h"
#include "sim/services/service_replica.h"
#include "sim/state/observer.h"

namespace gpumux {

class ServiceMetrics : public EngineObserver {
 public:
  // `engine` (the scenario's, sim/services/service_engine.h) makes each replica and says what
  // it sees of its shared GPU; `seed` (the scenario's) seeds each replica's own stream, mixed
  // with its job id.
  // `series_interval_s` > 0: LLM endpoints record their engine per interval of the run's
  // clock, for write_llm_timeseries.
  ServiceMetrics(std::shared_ptr<const ServiceEngine> engine, std::uint64_t seed,
                 double series_interval_s = 0.0)
      : engine_(std::move(engine)), seed_(seed), series_interval_s_(series_interval_s) {}

  void on_job_started(Time now, const ActiveJob& job) override;
  void on_service_rate_changed(Time now, const ActiveJob& job,
                               const ServiceGpuContext& context) override;
  void on_job_rejected(Time now, const ActiveJob& job, std::string_view reason) override;
  void on_job_killed(Time now, const ActiveJob& job, double lost_work_us) override;
  void on_job_finished(Time now, const ActiveJob& job) override;
  void on_job_failed(Time now, const ActiveJob& job) override;
  void on_run_end(Time now, std::span<const ActiveJob* const> unfinished) override;

  // Whether any service arrived (no `metrics.requests` otherwise).
  bool any() const { return !records_.empty(); }
  // The `metrics.requests` object. Precondition: the run has ended.
  nlohmann::json metrics() const;

  // llm_timeseries.csv: per LLM endpoint (in job order) and interval of the run's clock,
  // `time_s` (the interval's start), `endpoint`, `busy` (share of the interval running
  // iterations), `running` and `waiting` (time-average sequences), `kv_cache_use` (time-average
  // share of the cache's blocks in use), `output_tokens_per_s`. Precondition: the run has ended
  // and the series were asked for.
  void write_llm_timeseries(std::ostream& out) const;

  // Every LLM endpoint's TTFT and TPOT CDFs, in job order (a restarted endpoint once per
  // start). Precondition: the run has ended.
  std::vector<LlmEndpointCdfs> llm_cdfs() const;

  // The seed of a replica's stream: the scenario seed mixed with its job id (FNV-1a).
  static std::uint64_t replica_seed(std::uint64_t seed, const std::string& id);

 private:
  struct Live {
    std::shared_ptr<const ServiceSpec> spec;  // keeps the spec alive for the replica
    std::unique_ptr<ServiceReplica> replica;
    std::string id;
    double start_delay_s = 0;  // arrival to first start
  };
  struct Record {  // a service whose requests are all accounted for
    std::uint64_t ordinal = 0;
    std::string id;
    std::string service_class;  // ServiceSpec::service_class
    bool started = false;
    double start_delay_s = 0;  // arrival to first start; unstarted: arrival to now
    double slo_ms = 0;
    RequestCounts counts;
    double p50_us = 0, p95_us = 0, p99_us = 0, mean_us = 0;
    std::shared_ptr<const nlohmann::json> llm;  // an LLM endpoint's `llm` object; null: none
    std::shared_ptr<const LlmSeries> series;    // its engine over time, when recorded
    std::shared_ptr<const LlmEndpointCdfs> cdfs;  // an LLM endpoint's TTFT and TPOT CDFs
    std::int64_t kv_blocks = 0;
  };

  void close(std::uint64_t ordinal, Time now);
  // An LLM endpoint on a single GPU joins the group of the LLM endpoints there when every
  // other resident is one (sim/llm/llm_gpu_group.h); otherwise it keeps its fluid rate.
  void share_gpu(Time now, const ActiveJob& job, const ServiceGpuContext& seen, Live& live);
  void record_unstarted(Time now, const ActiveJob& job);

  std::shared_ptr<const ServiceEngine> engine_;
  std::uint64_t seed_;
  double series_interval_s_ = 0.0;
  // The LLM endpoints sharing a GPU, by GPU; declared before live_, whose replicas leave them.
  std::map<std::uint32_t, std::unique_ptr<LlmGpuGroup>> llm_groups_;
  // The GPU each running single-GPU LLM endpoint holds, by job ordinal, and how many hold each
  // GPU (kept together by hold_llm_gpu / release_llm_gpu).
  std::map<std::uint64_t, std::uint32_t> llm_gpu_;
  std::map<std::uint32_t, std::size_t> llm_on_gpu_;
  void hold_llm_gpu(std::uint64_t ordinal, std::uint32_t gpu);
  void release_llm_gpu(std::uint64_t ordinal);
  std::unordered_map<std::uint64_t, Live> live_;  // by job ordinal
  std::vector<Record> records_;
  LatencyHistogram all_;
  RequestCounts all_counts_;
  double slo_outcomes_ = 0, slo_within_ = 0;  // over services with an SLO
  bool any_slo_ = false;
  bool any_llm_ = false;
  LlmStats all_llm_;  // pooled over LLM endpoints
  RequestCounts all_llm_counts_;
  double first_arrival_s_ = -1;  // the first service's arrival; < 0: none yet
  double end_s_ = 0;             // the run's end
  void note_arrival(const ActiveJob& job);
};

}  // namespace gpumux
