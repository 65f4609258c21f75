#include "sim/invariants/invariant_checker.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/invariants/invariant_violation.h"

namespace gpumux {

namespace {

std::string at_time(Time now) { return invariant_time_text(now); }

std::string job_name(const ActiveJob& job) {
  return "job '" + job.spec.id + "' (#" + std::to_string(job.ordinal) + ")";
}

const char* phase_name(JobPhase phase) {
  switch (phase) {
    case JobPhase::kFree:
      return "gone";
    case JobPhase::kQueued:
      return "queued";
    case JobPhase::kRunning:
      return "running";
    case JobPhase::kRetryWait:
      return "waiting to retry";
  }
  return "?";
}

// Doubles carry work in microseconds; a relative 1e-9 covers their rounding, and one more
// microsecond the rounding of event times up to whole microseconds.
double slack(const ActiveJob& job) {
  return 1e-9 * std::max(1.0, static_cast<double>(job.spec.runtime.us())) + 1.0;
}

}  // namespace

void InvariantChecker::at(Time now) {
  ++signals_;
  if (now < last_) {
    throw InvariantViolation("time went backwards: a signal at " + at_time(now) + " after one at " +
                             at_time(last_));
  }
  last_ = now;
}

InvariantChecker::Live& InvariantChecker::live(const ActiveJob& job, Time now, const char* signal,
                                               Phase expected) {
  const auto it = live_.find(job.ordinal);
  if (it == live_.end()) {
    throw InvariantViolation(job_name(job) + " " + signal + " at " + at_time(now) +
                             (job.ordinal < arrived_ ? " after it already reached a terminal state"
                                                     : " before it arrived"));
  }
  if (it->second.phase != expected) {
    static constexpr const char* kNames[] = {"queued", "running", "waiting to retry"};
    throw InvariantViolation(job_name(job) + " " + signal + " at " + at_time(now) + " while " +
                             kNames[static_cast<int>(it->second.phase)]);
  }
  return it->second;
}

void InvariantChecker::on_job_arrived(Time now, const ActiveJob& job) {
  at(now);
  if (job.ordinal != arrived_) {
    throw InvariantViolation(job_name(job) + " arrived at " + at_time(now) + " as arrival #" +
                             std::to_string(job.ordinal) + ", expected #" +
                             std::to_string(arrived_) + " (each job arrives once, in order)");
  }
  if (now != job.spec.submit) {
    throw InvariantViolation(job_name(job) + " arrived at " + at_time(now) +
                             ", not at its submit time " + at_time(job.spec.submit));
  }
  ++arrived_;
  live_.emplace(job.ordinal, Live{});
}

void InvariantChecker::on_job_rejected(Time now, const ActiveJob& job, std::string_view) {
  at(now);
  live(job, now, "was rejected", Phase::kQueued);
  live_.erase(job.ordinal);
}

void InvariantChecker::on_job_started(Time now, const ActiveJob& job) {
  at(now);
  auto it = live_.find(job.ordinal);
  if (it != live_.end() && it->second.phase == Phase::kRetryWait) it->second.phase = Phase::kQueued;
  Live& l = live(job, now, "started", Phase::kQueued);
  l.phase = Phase::kRunning;
  l.last_start = now;
  // On a pooled cluster a job holds an amount of the pool, never GPUs (cluster.pool).
  const std::size_t held = cluster_.pooled() ? 0 : static_cast<std::size_t>(job.spec.gpus);
  if (job.gpus.size() != held) {
    throw InvariantViolation(job_name(job) + " started at " + at_time(now) + " on " +
                             std::to_string(job.gpus.size()) + " GPUs, its gang needs " +
                             std::to_string(held));
  }
  for (std::size_t i = 0; i < job.gpus.size(); ++i) {
    if (job.gpus[i] >= cluster_.gpu_count() ||
        std::find(job.gpus.begin(), job.gpus.begin() + static_cast<std::ptrdiff_t>(i),
                  job.gpus[i]) != job.gpus.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw InvariantViolation(job_name(job) + " started at " + at_time(now) +
                               " on GPU " + std::to_string(job.gpus[i]) +
                               " twice or outside the cluster");
    }
    const GpuState& gpu = cluster_.gpu(job.gpus[i]);
    if (gpu.residents.empty() || gpu.recovering || gpu.reconfiguring) {
      throw InvariantViolation(job_name(job) + " started at " + at_time(now) + " on GPU " +
                               std::to_string(job.gpus[i]) +
                               ", which holds no job, recovers from a fault or is reconfigured");
    }
    // Memory may be over until the model's out-of-memory verdict, which follows the start.
    check_gpu(now, job.gpus[i], gpu, false);
  }
  const double runtime = static_cast<double>(job.spec.runtime.us());
  const double kept = runtime - job.remaining_us;
  if (kept < l.kept_us - slack(job) || kept > runtime + slack(job)) {
    throw InvariantViolation(job_name(job) + " started at " + at_time(now) + " with " +
                             std::to_string(job.remaining_us) + " us of its " +
                             std::to_string(runtime) + " us of work left, having kept " +
                             std::to_string(l.kept_us) + " us at checkpoints");
  }
}

void InvariantChecker::on_job_finished(Time now, const ActiveJob& job) {
  at(now);
  Live& l = live(job, now, "finished", Phase::kRunning);
  const double runtime = static_cast<double>(job.spec.runtime.us());
  const double ran = static_cast<double>((now - l.last_start).us());
  // Rates are at most 1: the work left at the last start takes at least that long.
  if (runtime - l.kept_us > ran + slack(job)) {
    throw InvariantViolation(job_name(job) + " finished at " + at_time(now) + " after " +
                             std::to_string(ran) + " us of running with " +
                             std::to_string(runtime - l.kept_us) +
                             " us of work left at its start (faster than alone: done + lost != "
                             "required)");
  }
  if (job.kills != l.kills || std::abs(job.lost_work_us - l.lost_us) > slack(job)) {
    throw InvariantViolation(job_name(job) + " finished at " + at_time(now) + " counting " +
                             std::to_string(job.kills) + " kills and " +
                             std::to_string(job.lost_work_us) + " us of lost work; its kill "
                             "signals said " + std::to_string(l.kills) + " and " +
                             std::to_string(l.lost_us) + " us");
  }
  live_.erase(job.ordinal);
}

void InvariantChecker::on_memory_fault(Time now, GpuIndex gpu, std::size_t killed) {
  at(now);
  if (killed == 0 || gpu >= cluster_.gpu_count()) {
    throw InvariantViolation("out of memory on GPU " + std::to_string(gpu) + " at " +
                             at_time(now) + " killing " + std::to_string(killed) + " jobs");
  }
}

void InvariantChecker::on_fatal_fault(Time now, GpuIndex gpu, std::size_t killed) {
  at(now);
  if (killed == 0 || gpu >= cluster_.gpu_count()) {
    throw InvariantViolation("fatal fault on GPU " + std::to_string(gpu) + " at " + at_time(now) +
                             " killing " + std::to_string(killed) + " jobs");
  }
}

// A running attempt that ends without finishing (a kill or a migration): the work kept plus the
// work lost must be what the attempt could have done since it started, and no more. Returns the
// work kept.
double InvariantChecker::interrupted_work_kept(const ActiveJob& job, Time now, double lost_work_us,
                                               const Live& l, const char* what) const {
  const double runtime = static_cast<double>(job.spec.runtime.us());
  const double kept = runtime - job.remaining_us;
  const double done = kept + lost_work_us - l.kept_us;  // work of this attempt
  const double ran = static_cast<double>((now - l.last_start).us());
  if (!(lost_work_us >= 0.0) || kept < l.kept_us - slack(job) || kept > runtime + slack(job) ||
      done > ran + slack(job)) {
    throw InvariantViolation(job_name(job) + " " + what + " at " + at_time(now) + " after " +
                             std::to_string(ran) + " us of running, losing " +
                             std::to_string(lost_work_us) + " us and keeping " +
                             std::to_string(kept) + " us (before: " + std::to_string(l.kept_us) +
                             " us): work not conserved");
  }
  return kept;
}

void InvariantChecker::on_job_killed(Time now, const ActiveJob& job, double lost_work_us) {
  at(now);
  Live& l = live(job, now, "was killed", Phase::kRunning);
  const double kept = interrupted_work_kept(job, now, lost_work_us, l, "was killed");
  l.phase = Phase::kRetryWait;
  l.kept_us = kept;
  l.lost_us += lost_work_us;
  ++l.kills;
}

// A migrated job (moved off a GPU being reconfigured) is back in the queue with the work it
// kept; the work it lost counts as a kill's does (ActiveJob::lost_work_us), but it is no kill.
void InvariantChecker::on_job_migrated(Time now, const ActiveJob& job, double lost_work_us,
                                       Time) {
  at(now);
  Live& l = live(job, now, "was migrated", Phase::kRunning);
  const double kept = interrupted_work_kept(job, now, lost_work_us, l, "was migrated");
  l.phase = Phase::kQueued;
  l.kept_us = kept;
  l.lost_us += lost_work_us;
}

void InvariantChecker::on_job_failed(Time now, const ActiveJob& job) {
  at(now);
  Live& l = live(job, now, "failed", Phase::kRetryWait);
  if (l.kills == 0) {
    throw InvariantViolation(job_name(job) + " failed at " + at_time(now) + " without a kill");
  }
  live_.erase(job.ordinal);
}

void InvariantChecker::on_gpu_drain_started(Time now, GpuIndex) { at(now); }

void InvariantChecker::on_gpu_reconfigured(Time now, GpuIndex g, Time drain, Time delay) {
  at(now);
  if (drain < Time::zero() || delay < Time::zero() || !cluster_.gpu(g).residents.empty()) {
    throw InvariantViolation("GPU " + std::to_string(g) + " reconfigured at " + at_time(now) +
                             " with residents or a negative drain or delay");
  }
}

// A re-split in place keeps every resident on the GPU (on_gpu_changed then checks their new
// slots): it moves at most the residents there are, and a move's checkpoint is part of its pause.
void InvariantChecker::on_gpu_resplit(Time now, GpuIndex g, const Resplit& plan, bool,
                                      std::size_t moved) {
  at(now);
  if (moved == 0 || moved > cluster_.gpu(g).residents.size() || plan.checkpoint < Time::zero() ||
      plan.pause < plan.checkpoint || plan.unavailable < Time::zero()) {
    throw InvariantViolation("GPU " + std::to_string(g) + " re-split at " + at_time(now) +
                             " moving " + std::to_string(moved) + " of " +
                             std::to_string(cluster_.gpu(g).residents.size()) +
                             " residents, or with a checkpoint longer than the pause or a "
                             "negative time out of service");
  }
}

void InvariantChecker::on_gpu_changed(Time now, GpuIndex g, const GpuState& gpu) {
  at(now);
  check_gpu(now, g, gpu, true);
}

void InvariantChecker::check_gpu(Time now, GpuIndex g, const GpuState& gpu,
                                 bool memory_settled) {
  const DeviceProfile& device = cluster_.device_of(g);
  auto fail = [&](const std::string& what) {
    throw InvariantViolation("GPU " + std::to_string(g) + " (" + device.name + ") at " +
                             at_time(now) + ": " + what);
  };
  if (gpu.memory_used < MemoryMiB(0)) {
    fail("memory in use is negative (" + std::to_string(gpu.memory_used.mib()) + " MiB)");
  }
  if (memory_settled && gpu.memory_used > device.memory) {
    fail(std::to_string(gpu.memory_used.mib()) + " MiB in use of its " +
         std::to_string(device.memory.mib()) + " MiB (memory above capacity)");
  }
  if (model_.requires_empty_gpu() && gpu.residents.size() > 1) {
    fail(std::to_string(gpu.residents.size()) +
         " jobs share it under empty-GPU admission (over-allocation)");
  }
  if ((gpu.recovering || gpu.reconfiguring) && !gpu.residents.empty()) {
    fail(std::to_string(gpu.residents.size()) + " jobs on it while it " +
         (gpu.recovering ? "recovers from a fault" : "is reconfigured"));
  }
}

void InvariantChecker::on_service_rate_changed(Time now, const ActiveJob& job,
                                                const ServiceGpuContext& /*context*/) {
  at(now);
  live(job, now, "changed rate", Phase::kRunning);
  if (!(job.rate > 0.0 && job.rate <= 1.0)) {
    throw InvariantViolation(job_name(job) + " got rate " + std::to_string(job.rate) + " at " +
                             at_time(now) + ", outside (0, 1]");
  }
}

void InvariantChecker::on_run_end(Time now, std::span<const ActiveJob* const> unfinished) {
  at(now);
  for (const ActiveJob* job : unfinished) {
    const auto it = live_.find(job->ordinal);
    const bool running = job->phase == JobPhase::kRunning;
    if (it == live_.end() || (it->second.phase == Phase::kRunning) != running) {
      throw InvariantViolation(job_name(*job) + " is listed unfinished (" +
                               phase_name(job->phase) + ") at the end of the run, " +
                               at_time(now) + ", but its signals say otherwise");
    }
    live_.erase(it);
  }
  if (!live_.empty()) {
    std::uint64_t first = live_.begin()->first;
    for (const auto& [ordinal, l] : live_) first = std::min(first, ordinal);
    throw InvariantViolation(std::to_string(live_.size()) +
                             " jobs reached no terminal state by the end of the run at " +
                             at_time(now) + " (the first: arrival #" + std::to_string(first) +
                             "): neither finished, rejected, failed nor listed unfinished");
  }
}

}  // namespace gpumux
