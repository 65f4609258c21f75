#include "analysis/metrics/metrics_collector.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/stats/distribution_summary.h"
#include "traces/formats/trace_writer.h"

namespace gpumux {

MetricsCollector::MetricsCollector(std::size_t gpu_count, Time timeseries_interval,
                                   std::ostream* jobs_csv, std::ostream* timeseries_csv,
                                   std::vector<const TimeseriesColumns*> extra)
    : gpu_count_(gpu_count),
      interval_(timeseries_interval),
      jobs_csv_(jobs_csv),
      timeseries_csv_(timeseries_csv),
      extra_(std::move(extra)),
      allocated_(gpu_count, 0),
      busy_(gpu_count, 0.0),
      overhead_(gpu_count, 0.0) {
  if (jobs_csv_) {
    *jobs_csv_ << "id,state,submit_s,gpus,runtime_s,start_s,finish_s,queue_s,jct_s,slowdown,"
                  "placement_span,first_gpu,kills,reason,kind,tenant,memory_mib,sm_util,"
                  "sm_share,device,mig_instance\n";
  }
  if (timeseries_csv_) {
    *timeseries_csv_ << "time_s,allocated_gpus,allocation_ratio,sm_busy,overhead,queued,running,"
                        "finished,failed,memory_faults,fatal_faults,jobs_killed";
    for (const TimeseriesColumns* columns : extra_) *timeseries_csv_ << columns->header();
    *timeseries_csv_ << '\n';
  }
}

double timeseries_value(double x, double scale) {
  return std::abs(x) < 1e-9 * std::abs(scale) ? 0.0 : x;
}

std::string format_timeseries_value(double x, double scale) {
  return format_double(timeseries_value(x, scale));
}

void MetricsCollector::emit_samples(Time limit, bool inclusive) {
  if (timeseries_csv_ && next_sample_ <= limit) {
    // Rows this call writes, checked before the first of them is written.
    const std::int64_t span = (limit - next_sample_).us(), step = interval_.us();
    const std::uint64_t due =
        static_cast<std::uint64_t>(inclusive ? span / step + 1 : (span + step - 1) / step);
    if (timeseries_rows_ + due > kMaxTimeseriesRows) {
      throw TimeseriesTooLong("timeseries.csv would have more than " +
                              std::to_string(kMaxTimeseriesRows) + " rows (the run reaches " +
                              std::to_string(static_cast<long long>(limit.seconds())) +
                              " s at one row every " + format_seconds(interval_) +
                              " s); raise timeseries_interval_s or turn timeseries_csv off");
    }
    timeseries_rows_ += due;
  }
  while (timeseries_csv_ && (next_sample_ < limit || (inclusive && next_sample_ == limit))) {
    // Shares of no GPU (a cluster of CPU pools alone) are 0: nothing is allocated or busy.
    const double g = static_cast<double>(gpu_count_);
    auto share = [g](double x) { return g > 0 ? x / g : 0.0; };
    // One row in a character buffer, written at once (a stream insertion per value was most
    // of the cost of a week of rows a minute apart).
    RowText& o = sample_row_;
    o.clear();
    o.put_seconds(next_sample_);
    o.put(',');
    o.put_double(timeseries_value(allocated_gpus(), std::max(g, 1.0)));
    o.put(',');
    o.put_double(timeseries_value(share(allocated_gpus())));
    o.put(',');
    o.put_double(timeseries_value(share(busy_sum_)));
    o.put(',');
    o.put_double(timeseries_value(share(overhead_sum_)));
    for (const std::uint64_t count : {std::uint64_t{arrived_ - rejected_ - failed_ - started_},
                                      std::uint64_t{started_ - finished_}, std::uint64_t{finished_},
                                      std::uint64_t{failed_}, std::uint64_t{cascade_sizes_.size()},
                                      std::uint64_t{fatal_faults_}, std::uint64_t{kills_}}) {
      o.put(',');
      o.put_unsigned(count);
    }
    if (extra_.empty()) o.put('\n');
    const std::string_view row = o.text();
    timeseries_csv_->write(row.data(), static_cast<std::streamsize>(row.size()));
    if (!extra_.empty()) {
      for (const TimeseriesColumns* columns : extra_) columns->write_values(*timeseries_csv_);
      *timeseries_csv_ << '\n';
    }
    next_sample_ += interval_;
  }
}

void MetricsCollector::advance_to(Time now) {
  if (!started_clock_) return;
  emit_samples(now, false);
  const double dt = static_cast<double>((now - last_time_).us());
  allocated_integral_ += allocated_gpus() * dt;
  busy_integral_ += busy_sum_ * dt;
  overhead_integral_ += overhead_sum_ * dt;
  last_time_ = now;
}

void MetricsCollector::on_job_arrived(Time now, const ActiveJob& job) {
  if (!started_clock_) {
    started_clock_ = true;
    first_arrival_ = last_time_ = next_sample_ = now;
  }
  advance_to(now);
  ++arrived_;
  if (job.spec.service) ++services_arrived_;
  by_kind_.arrived(job.spec);
}

void MetricsCollector::on_job_rejected(Time now, const ActiveJob& job, std::string_view reason) {
  advance_to(now);
  ++rejected_;
  write_job_row(job, "rejected", Time::zero(), reason);
}

MetricsCollector::Placement MetricsCollector::placement_of(const ActiveJob& job) const {
  Placement p;
  if (!cluster_ || job.gpus.empty()) return p;
  const GpuIndex first = job.gpus.front();
  const DeviceProfile& device = cluster_->device_of(first);
  p.device = device.name;
  const GpuState& gpu = cluster_->gpu(first);
  // The engine adds a starting job to each of its GPUs last, just before it signals the start:
  // its slot on the first GPU is that GPU's last.
  if (slot_count(*model_, device, gpu.layout) > 0 && !gpu.slots.empty()) {
    const int slot = gpu.slots.back();
    p.instance = std::string(model_->slot_layout()->slot_info(device, gpu.layout, slot).name) +
                 ":" + std::to_string(slot);
  }
  return p;
}

void MetricsCollector::hold_pool(const ActiveJob& job, int sign) {
  // A started job without GPUs asking for some holds an amount of a pool (sim/state/pool.h).
  if (!job.gpus.empty() || job.spec.gpus == 0) return;
  pool_held_ += sign * pool_request(job.spec).gpu;
  if (!pool_seen_) peak_pool_gpus_ = static_cast<double>(peak_allocated_);
  pool_seen_ = true;
  peak_pool_gpus_ = std::max(peak_pool_gpus_, allocated_gpus());
}

void MetricsCollector::on_job_started(Time now, const ActiveJob& job) {
  advance_to(now);
  hold_pool(job, +1);
  ++started_;
  if (jobs_csv_ && cluster_) {
    // Pooled jobs (no GPU) have an empty placement, which the row writes as when none is kept.
    Placement p = placement_of(job);
    if (p.device.empty() && p.instance.empty()) {
      placements_.erase(job.ordinal);
    } else {
      placements_[job.ordinal] = std::move(p);
    }
  }
}

void MetricsCollector::on_job_finished(Time now, const ActiveJob& job) {
  advance_to(now);
  hold_pool(job, -1);
  ++finished_;
  last_finish_ = std::max(last_finish_, now);
  const double jct = (now - job.spec.submit).seconds();
  const double queued = (job.start - job.spec.submit).seconds();
  const bool service = job.spec.service != nullptr;
  jct_s_.add(jct);
  queue_s_.add(queued);
  if (service) {
    ++services_finished_;
  } else {
    batch_jct_s_.add(jct);
    batch_queue_s_.add(queued);
  }
  by_kind_.finished(job.spec, jct, queued);
  if (job.spec.runtime > Time::zero()) {
    const double slowdown = jct / job.spec.runtime.seconds();
    const double sharing = (now - job.start).seconds() / job.spec.runtime.seconds();
    slowdown_.add(slowdown);
    sharing_slowdown_.add(sharing);
    if (!service) {
      batch_slowdown_.add(slowdown);
      batch_sharing_slowdown_.add(sharing);
    }
  }
  work_done_gpu_s_ += job.spec.runtime.seconds() * job.spec.gpus;
  write_job_row(job, "finished", now, "");
}

void MetricsCollector::on_gpu_changed(Time now, GpuIndex index, const GpuState& gpu) {
  advance_to(now);
  const bool allocated = !gpu.residents.empty();
  if (allocated != static_cast<bool>(allocated_[index])) {
    allocated_count_ += allocated ? 1 : -1;
    allocated_[index] = allocated ? 1 : 0;
    peak_allocated_ = std::max(peak_allocated_, allocated_count_);
  }
  const double busy = allocated ? gpu.load.useful_busy : 0.0;
  const double overhead = allocated ? gpu.load.overhead : 0.0;
  busy_sum_ += busy - busy_[index];
  overhead_sum_ += overhead - overhead_[index];
  busy_[index] = busy;
  overhead_[index] = overhead;
}

void MetricsCollector::on_memory_fault(Time now, GpuIndex, std::size_t killed) {
  advance_to(now);
  cascade_sizes_.add(killed);
  memory_fault_kills_ += killed;
}

void MetricsCollector::on_fatal_fault(Time now, GpuIndex, std::size_t killed) {
  advance_to(now);
  ++fatal_faults_;
  fatal_fault_kills_ += killed;
}

void MetricsCollector::on_job_killed(Time now, const ActiveJob& job, double lost_work_us) {
  advance_to(now);
  ++kills_;
  lost_gpu_us_ += lost_work_us * job.spec.gpus;
  // The job left the GPUs it ran on: it is no longer started, and not yet queued.
  --started_;  // back to queued (or failed)
}

void MetricsCollector::on_job_migrated(Time now, const ActiveJob& job, double lost_work_us,
                                       Time checkpoint) {
  advance_to(now);
  ++migrations_;
  migration_lost_gpu_us_ += lost_work_us * job.spec.gpus;
  checkpoint_gpu_us_ += static_cast<double>(checkpoint.us()) * job.spec.gpus;
  --started_;  // back to queued
}

void MetricsCollector::on_job_failed(Time now, const ActiveJob& job) {
  advance_to(now);
  ++failed_;
  write_job_row(job, "failed", Time::zero(),
                "killed " + std::to_string(job.kills) + " times (retry limit reached)");
}

void MetricsCollector::on_gpu_reconfigured(Time now, GpuIndex, Time drain, Time delay) {
  advance_to(now);
  ++reconfigurations_;
  drain_us_ += static_cast<double>(drain.us());
  reconfiguration_us_ += static_cast<double>(delay.us());
}

void MetricsCollector::on_gpu_resplit(Time now, GpuIndex, const Resplit& plan,
                                      bool layout_changed, std::size_t moved) {
  advance_to(now);
  // A re-split in place is a reconfiguration when the layout changes (the GPU taking no job
  // while its instances are made); each resident it moves is a migration with its checkpoint
  // (its restart, like a migrated job's, shows in its JCT).
  if (layout_changed) {
    ++reconfigurations_;
    reconfiguration_us_ += static_cast<double>(plan.unavailable.us());
  }
  migrations_ += moved;
  checkpoint_gpu_us_ += static_cast<double>(plan.checkpoint.us()) * static_cast<double>(moved);
}

void MetricsCollector::on_run_end(Time now, std::span<const ActiveJob* const> unfinished) {
  advance_to(now);
  end_ = now;
  if (started_clock_) {
    emit_samples(now, true);
    // A closing sample at the end of the run, unless one just fell on it.
    if (next_sample_ - interval_ != now) {
      next_sample_ = now;
      emit_samples(now, true);
    }
  }
  for (const ActiveJob* job : unfinished) {
    if (job->phase == JobPhase::kRunning) {
      ++unfinished_running_;
      write_job_row(*job, "running", Time::zero(), "run ended at the time limit");
    } else {
      ++unfinished_queued_;  // queued, or waiting to retry after a kill
      write_job_row(*job, "queued", Time::zero(), "run ended at the time limit");
    }
  }
}

void MetricsCollector::write_job_row(const ActiveJob& job, std::string_view state, Time finish,
                                     std::string_view reason) {
  if (!jobs_csv_) return;
  RowText& o = row_;
  o.clear();
  const JobSpec& s = job.spec;
  const bool started = state == "finished" || state == "running";
  o.put_csv_cell(s.id);
  o.put(',');
  o.put(state);
  o.put(',');
  o.put_seconds(s.submit);
  o.put(',');
  o.put_integer(s.gpus);
  o.put(',');
  o.put_seconds(s.runtime);
  o.put(',');
  if (started) o.put_seconds(job.start);
  o.put(',');
  if (state == "finished") {
    const double jct = (finish - s.submit).seconds();
    o.put_seconds(finish);
    o.put(',');
    o.put_seconds(job.start - s.submit);
    o.put(',');
    o.put_seconds(finish - s.submit);
    o.put(',');
    if (s.runtime > Time::zero()) o.put_double(jct / s.runtime.seconds());
  } else {
    o.put(",,,");
  }
  o.put(',');
  if (started && job.gpus.empty()) {
    // No GPU: a job of a pooled cluster holds an amount of the pool; a CPU-only job on a
    // cluster of nodes holds cores on one node.
    o.put(cluster_ && !cluster_->pooled() ? "node," : "pool,");
  } else if (started) {
    o.put(link_kind_name(job.span));
    o.put(',');
    o.put_integer(job.gpus.front());
  } else {
    o.put(',');
  }
  o.put(',');
  o.put_integer(job.kills);
  o.put(',');
  o.put_csv_cell(reason);
  o.put(',');
  o.put(job_kind_name(s.kind));
  o.put(',');
  o.put_csv_cell(s.tenant);
  o.put(',');
  o.put_integer(s.memory.mib());
  o.put(',');
  o.put_double(s.sm_util);
  o.put(',');
  o.put_double(s.sm_share);
  o.put(',');
  // Where it ran (its last start, for a job killed and not restarted); empty if it never started.
  if (const auto it = placements_.find(job.ordinal); it != placements_.end()) {
    o.put_csv_cell(it->second.device);
    o.put(',');
    o.put_csv_cell(it->second.instance);
    placements_.erase(it);
  } else {
    o.put(',');
  }
  o.put('\n');
  const std::string_view row = o.text();
  jobs_csv_->write(row.data(), static_cast<std::streamsize>(row.size()));
}

nlohmann::json MetricsCollector::metrics() {
  const double span_us = static_cast<double>((end_ - first_arrival_).us());
  const double capacity = static_cast<double>(gpu_count_) * span_us;
  // A share of no GPU time (no job arrived, or all at one instant) is n/a: null, not 0.
  auto ratio = [&](double integral) {
    return capacity > 0 ? nlohmann::json(integral / capacity) : nlohmann::json(nullptr);
  };
  // Every job percentile is over finished jobs only; `excluded` says how many arrived jobs are
  // not in it and why, so that a percentile is never read without the jobs it leaves out.
  // When services run beside batch jobs, the distributions are over the batch jobs alone and
  // the finished services are excluded too (metrics.by_kind has theirs).
  const bool services_apart = services_arrived_ > 0 && services_arrived_ < arrived_;
  nlohmann::json excluded = {{"rejected", rejected_},
                             {"failed", failed_},
                             {"unfinished", unfinished_queued_ + unfinished_running_}};
  if (services_apart) excluded["services"] = services_finished_;
  const std::uint64_t summarised = services_apart ? finished_ - services_finished_ : finished_;
  auto over_finished = [&](QuantileSketch& pooled, QuantileSketch& batch) {
    nlohmann::json j = (services_apart ? batch : pooled).to_json();
    j["excluded"] = excluded;
    return j;
  };
  // Slowdowns also leave out finished jobs with a zero exclusive runtime (no ratio).
  auto over_timed = [&](QuantileSketch& pooled, QuantileSketch& batch) {
    nlohmann::json j = over_finished(pooled, batch);
    j["excluded"]["zero_runtime"] = summarised - (services_apart ? batch : pooled).count();
    return j;
  };
  nlohmann::json out = {
      {"jobs",
       {{"arrived", arrived_},
        {"finished", finished_},
        {"rejected", rejected_},
        {"failed", failed_},
        {"unfinished_queued", unfinished_queued_},
        {"unfinished_running", unfinished_running_}}},
      {"gpus", gpu_count_},
      {"makespan_s", started_clock_ ? nlohmann::json((end_ - first_arrival_).seconds())
                                    : nlohmann::json(nullptr)},
      {"gpu_allocation_ratio", ratio(allocated_integral_)},
      {"sm_busy_utilization", ratio(busy_integral_)},
      {"sm_busy_per_allocated_gpu", allocated_integral_ > 0
                                        ? nlohmann::json(busy_integral_ / allocated_integral_)
                                        : nlohmann::json(nullptr)},
      {"sharing_overhead", ratio(overhead_integral_)},
      {"sharing_overhead_gpu_hours", overhead_integral_ / 3.6e9},
      {"peak_allocated_gpus",
       pool_seen_ ? nlohmann::json(peak_pool_gpus_) : nlohmann::json(peak_allocated_)},
      {"mean_allocated_gpus",
       span_us > 0 ? nlohmann::json(allocated_integral_ / span_us) : nlohmann::json(nullptr)},
      {"finished_work_gpu_hours", work_done_gpu_s_ / 3600.0},
      {"failures",
       {{"memory_faults", cascade_sizes_.size()},
        {"jobs_killed", kills_},
        {"memory_fault_kills", memory_fault_kills_},
        {"fatal_faults", fatal_faults_},
        {"fatal_fault_kills", fatal_fault_kills_},
        {"jobs_failed", failed_},
        {"lost_work_gpu_hours", lost_gpu_us_ / 3.6e9},
        {"cascade_size", cascade_sizes_.summary().to_json()}}},
      {"reconfigurations",
       {{"count", reconfigurations_},
        {"drain_gpu_hours", drain_us_ / 3.6e9},
        {"reconfiguration_gpu_hours", reconfiguration_us_ / 3.6e9},
        {"migrations", migrations_},
        {"migration_lost_work_gpu_hours", migration_lost_gpu_us_ / 3.6e9},
        {"checkpoint_gpu_hours", checkpoint_gpu_us_ / 3.6e9}}},
      {"jct_s", over_finished(jct_s_, batch_jct_s_)},
      {"queueing_delay_s", over_finished(queue_s_, batch_queue_s_)},
      {"slowdown", over_timed(slowdown_, batch_slowdown_)},
      {"sharing_slowdown", over_timed(sharing_slowdown_, batch_sharing_slowdown_)},
  };
  if (nlohmann::json kinds = by_kind_.to_json(); !kinds.is_null()) out["by_kind"] = kinds;
  return out;
}

}  // namespace gpumux
