// Turns engine signals into the run's metrics, per-job records and time series.
//
// GPU metrics are time-weighted over [first arrival, end of run]:
// - allocation ratio: share of GPU-time with at least one job on the GPU; on a pooled cluster
//   (sim/state/pool.h) the GPUs' worth its jobs hold (a 0.25-GPU job counts 0.25), so allocated
//   GPUs may be fractional there;
// - SM-busy utilization: share of GPU-time the SMs spend on jobs' kernels (useful work), as
//   the sharing model reports it for each GPU;
// - sharing overhead: share of GPU-time lost to sharing (e.g. context switches).
// Failures: out-of-memory events, the number of jobs each killed (cascade size) and their
// kills; fatal GPU faults and their kills (the faulting job and the model's blast radius); all
// kills, jobs that failed after their retries, and the GPU-hours of work lost (redone from a
// checkpoint).
// Job metrics: JCT = finish - submit, queueing delay = start - submit, slowdown = JCT /
// exclusive runtime, and sharing slowdown = (finish - first start) / exclusive runtime: what
// sharing (and any kills) cost once the job started (jobs with zero runtime are left out of
// both). Each of these four distributions is over finished jobs only and carries
// `excluded: {rejected, failed, unfinished}` (the slowdowns also `zero_runtime`): the arrived
// jobs it leaves out, so that a percentile is never read without them. Statistics of an empty
// set (no finished job, no out-of-memory event) and shares of no GPU time are null, never 0.
// Past 100,000 finished jobs the four job distributions are sketched (quantile_sketch.h): their
// percentiles are then within 0.5 % and their JSON says so ("relative_error").
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/metrics/kind_metrics.h"
#include "analysis/stats/count_histogram.h"
#include "analysis/stats/quantile_sketch.h"
#include "sim/core/sharing_model.h"
#include "sim/state/cluster.h"
#include "sim/state/observer.h"
#include "traces/formats/row_text.h"

namespace gpumux {

// The most rows timeseries.csv may have (about 60 MB): a year sampled every 60 s is 525,600.
// A run that would write more (a tiny timeseries_interval_s, or times of years) stops with
// TimeseriesTooLong before writing the rows past it; the run driver names the scenario key.
inline constexpr std::uint64_t kMaxTimeseriesRows = 1'000'000;

class TimeseriesTooLong : public std::length_error {
 public:
  using std::length_error::length_error;
};

// A timeseries.csv value: `x` as written, or 0 when |x| is below 1e-9 of `scale` (the
// quantity's size: 1 for a share, the cluster's GPUs for GPUs). Running sums such as the busy
// share add and remove each GPU's value, so "nothing" can read -1.7e-18 rather than 0.
std::string format_timeseries_value(double x, double scale = 1.0);
// The value that text shows: x, or 0 when |x| is below 1e-9 x |scale| (rounding dust).
double timeseries_value(double x, double scale = 1.0);

// More columns of timeseries.csv from another observer (e.g. ShareMetrics): its values as they
// stand when a row is written (the state before the event being handled).
class TimeseriesColumns {
 public:
  virtual ~TimeseriesColumns() = default;
  virtual std::string header() const = 0;                  // ",name,name..."
  virtual void write_values(std::ostream& out) const = 0;  // ",value,value..."
};

class MetricsCollector : public EngineObserver {
 public:
  // `jobs_csv` / `timeseries_csv` may be null (not written). Rows are streamed as the run goes.
  // `extra` add columns to timeseries.csv, in order; each must outlive the collector.
  MetricsCollector(std::size_t gpu_count, Time timeseries_interval, std::ostream* jobs_csv,
                   std::ostream* timeseries_csv, std::vector<const TimeseriesColumns*> extra = {});

  void on_job_arrived(Time now, const ActiveJob& job) override;
  void on_job_rejected(Time now, const ActiveJob& job, std::string_view reason) override;
  void on_job_started(Time now, const ActiveJob& job) override;
  void on_job_finished(Time now, const ActiveJob& job) override;
  void on_gpu_changed(Time now, GpuIndex index, const GpuState& gpu) override;
  void on_memory_fault(Time now, GpuIndex gpu, std::size_t killed) override;
  void on_fatal_fault(Time now, GpuIndex gpu, std::size_t killed) override;
  void on_job_killed(Time now, const ActiveJob& job, double lost_work_us) override;
  void on_job_migrated(Time now, const ActiveJob& job, double lost_work_us,
                       Time checkpoint) override;
  void on_job_failed(Time now, const ActiveJob& job) override;
  void on_gpu_reconfigured(Time now, GpuIndex gpu, Time drain, Time delay) override;
  void on_gpu_resplit(Time now, GpuIndex gpu, const Resplit& plan, bool layout_changed,
                      std::size_t moved) override;
  void on_run_end(Time now, std::span<const ActiveJob* const> unfinished) override;

  // Lets jobs.csv name each started job's device and MIG instance (the slot it holds on its
  // first GPU). Without it those columns stay empty. Both must outlive the collector.
  void describe_placements(const Cluster& cluster, const SharingModel& model) {
    cluster_ = &cluster;
    model_ = &model;
  }

  // Job percentiles exact however many jobs finish (outputs.exact_percentiles); by default they
  // are exact up to QuantileSketch::kDefaultExactLimit finished jobs and within
  // QuantileSketch::kRelativeError past it, in bounded memory. Call before the run.
  void set_exact_percentiles(bool exact) {
    const std::size_t limit =
        exact ? QuantileSketch::kAlwaysExact : QuantileSketch::kDefaultExactLimit;
    jct_s_ = queue_s_ = slowdown_ = sharing_slowdown_ = QuantileSketch(limit);
    batch_jct_s_ = batch_queue_s_ = batch_slowdown_ = batch_sharing_slowdown_ =
        QuantileSketch(limit);
    by_kind_.set_exact_limit(limit);
  }

  // Every metric, for summary.json (valid after on_run_end).
  nlohmann::json metrics();

 private:
  void advance_to(Time now);  // integrates GPU state up to `now` and emits due samples
  // GPUs allocated now: those with a resident, plus the GPUs' worth pooled jobs hold.
  double allocated_gpus() const {
    return static_cast<double>(allocated_count_) + static_cast<double>(pool_held_) / 100.0;
  }
  // Counts a pooled job's GPU amount in (sign +1) or out (-1); other jobs are left alone.
  void hold_pool(const ActiveJob& job, int sign);
  // Writes time-series rows for sample times before `limit` (or at it, when inclusive).
  void emit_samples(Time limit, bool inclusive);
  void write_job_row(const ActiveJob& job, std::string_view state, Time finish,
                     std::string_view reason);

  // Where a started job runs, for its jobs.csv row: device name, and "<profile>:<slot>" of its
  // MIG instance (empty without slots). Kept from its (last) start until its row is written.
  struct Placement {
    std::string device;
    std::string instance;
  };
  Placement placement_of(const ActiveJob& job) const;

  std::size_t gpu_count_;
  const Cluster* cluster_ = nullptr;
  const SharingModel* model_ = nullptr;
  std::unordered_map<std::uint64_t, Placement> placements_;  // by job ordinal
  Time interval_;
  std::ostream* jobs_csv_;
  RowText sample_row_;  // one timeseries.csv row (reused)
  RowText row_;         // one jobs.csv row, built before it is written (reused: no allocation)
  std::ostream* timeseries_csv_;
  std::vector<const TimeseriesColumns*> extra_;

  bool started_clock_ = false;
  Time first_arrival_;
  Time last_time_;
  Time end_;
  Time next_sample_;
  std::uint64_t timeseries_rows_ = 0;

  std::vector<std::uint8_t> allocated_;
  std::vector<double> busy_;
  std::vector<double> overhead_;
  std::size_t allocated_count_ = 0;
  std::size_t peak_allocated_ = 0;
  std::int64_t pool_held_ = 0;  // hundredths of a GPU held by pooled jobs
  bool pool_seen_ = false;      // a pooled job started: peaks are then fractional
  double peak_pool_gpus_ = 0.0;
  double busy_sum_ = 0.0;
  double overhead_sum_ = 0.0;
  double allocated_integral_ = 0.0;  // GPU-microseconds
  double busy_integral_ = 0.0;
  double overhead_integral_ = 0.0;

  std::uint64_t arrived_ = 0, rejected_ = 0, started_ = 0, finished_ = 0;
  std::uint64_t unfinished_queued_ = 0, unfinished_running_ = 0;
  std::uint64_t failed_ = 0, kills_ = 0;
  CountHistogram cascade_sizes_;  // jobs killed per out-of-memory event
  std::uint64_t memory_fault_kills_ = 0, fatal_faults_ = 0, fatal_fault_kills_ = 0;
  double lost_gpu_us_ = 0.0;  // GPU-microseconds of work lost to kills
  std::uint64_t reconfigurations_ = 0;
  double drain_us_ = 0.0, reconfiguration_us_ = 0.0;
  std::uint64_t migrations_ = 0;  // jobs moved off reconfigured GPUs
  double migration_lost_gpu_us_ = 0.0, checkpoint_gpu_us_ = 0.0;
  QuantileSketch jct_s_, queue_s_, slowdown_, sharing_slowdown_;
  // The same over the batch jobs (training and batch inference) alone: what the summary's
  // distributions hold when services run beside them, whose completion time is their lifetime,
  // set by the scenario (the services are then counted in `excluded.services`).
  QuantileSketch batch_jct_s_, batch_queue_s_, batch_slowdown_, batch_sharing_slowdown_;
  std::uint64_t services_arrived_ = 0, services_finished_ = 0;
  KindMetrics by_kind_;           // the same, per kind of job (metrics.by_kind)
  double work_done_gpu_s_ = 0.0;  // exclusive GPU-seconds of finished jobs
  Time last_finish_;
};

}  // namespace gpumux
