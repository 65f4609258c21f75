// Kills: an allocation that no longer fits (out of memory, the model's OOM policy choosing the
// victims), a fatal GPU fault (its blast radius from the model), and the kill itself (work kept
// to the last checkpoint, the job retried or failed). Kept apart from engine.cc, the event loop
// and starts; the hooks there are refresh_touched() (memory), start() (the next fault time)
// and the kFatalFault event.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/engine/engine.h"

namespace gpumux {

bool Engine::check_memory(Time now, GpuIndex g, GpuViewBuilder& views) {
  GpuState& gpu = cluster_.gpu(g);
  // Asked on every change, not only when the GPU is over: per-client limits (MPS pinned
  // memory) can fail one job on a GPU with memory left.
  if (gpu.residents.empty()) return false;
  killed_mask_.assign(gpu.residents.size(), 0);
  Time recovery;
  const bool fault = model_.memory_fault(views.view(g), killed_mask_, recovery);
  // The askers have been answered: the next check sees only new allocations.
  std::fill(gpu.asked.begin(), gpu.asked.end(), std::uint8_t{0});
  if (!fault) return false;
  const std::size_t n = kill_marked(now, g, recovery, KillCause::kMemory);
  if (n == 0) return false;
  ++stats_.memory_faults;
  stats_.memory_fault_kills += n;
  return true;
}

std::size_t Engine::kill_marked(Time now, GpuIndex g, Time recovery, KillCause cause) {
  GpuState& gpu = cluster_.gpu(g);
  to_kill_.clear();
  for (std::size_t i = 0; i < killed_mask_.size(); ++i) {
    if (killed_mask_[i]) to_kill_.push_back(gpu.residents[i]);
  }
  if (to_kill_.empty()) return 0;
  if (recovery > Time::zero() && to_kill_.size() != gpu.residents.size()) {
    // A GPU in fault recovery runs nothing: the fault must reach every client.
    throw std::logic_error("sharing model '" + std::string(model_.name()) + "' set a " +
                           (cause == KillCause::kMemory ? "memory" : "fatal") +
                           " fault recovery but spared some residents");
  }
  const std::size_t n = to_kill_.size();
  for (auto* o : observers_) {
    if (cause == KillCause::kMemory) {
      o->on_memory_fault(now, g, n);
    } else {
      o->on_fatal_fault(now, g, n);
    }
  }
  for (JobSlot s : to_kill_) kill(now, s);
  if (recovery > Time::zero()) {
    cluster_.gpu(g).recovering = true;
    cluster_.set_available(g, false);
    events_.push(now + recovery, EventKind::kGpuRecovered, g);
  }
  return n;
}

Time Engine::draw_fault_time(const ActiveJob& job, Time now) {
  // Exponential waiting time of the job's processes together (one per GPU), by inversion of a
  // 53-bit uniform so that the draw is the same on every standard library.
  const double u = static_cast<double>(fault_rng_() >> 11) * 0x1.0p-53;
  const double wait_us = -std::log1p(-u) / (fault_rate_per_us_ * job.spec.gpus);
  const double left = static_cast<double>((Time::infinity() - now).us());
  if (!(wait_us < left)) return Time::infinity();
  return now +
         Time::from_us(std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(wait_us))));
}

void Engine::apply_injected_faults(ActiveJob& job) {
  injected_fired_.resize(options_.injected_faults.size(), 0);
  for (std::size_t i = 0; i < options_.injected_faults.size(); ++i) {
    const InjectedFault& f = options_.injected_faults[i];
    if (f.job_id != job.spec.id || injected_fired_[i]) continue;
    injected_fired_[i] = 1;
    job.fault_at = std::min(job.fault_at, now_ + f.after_start);
  }
}

std::vector<std::string> Engine::injected_faults_not_fired() const {
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < options_.injected_faults.size(); ++i) {
    if (i >= injected_fired_.size() || !injected_fired_[i]) {
      ids.push_back(options_.injected_faults[i].job_id);
    }
  }
  return ids;
}

void Engine::on_fatal_fault(Time now, JobSlot slot) {
  ActiveJob& job = jobs_[slot];
  // Which of its processes faults: each GPU's is equally likely.
  std::size_t which = 0;
  if (job.gpus.size() > 1) which = static_cast<std::size_t>(fault_rng_() % job.gpus.size());
  const GpuIndex g = job.gpus[which];
  touch(g, now);
  GpuState& gpu = cluster_.gpu(g);
  const auto pos = std::find(gpu.residents.begin(), gpu.residents.end(), slot);
  const auto faulting = static_cast<std::size_t>(pos - gpu.residents.begin());
  killed_mask_.assign(gpu.residents.size(), 0);
  Time recovery;
  model_.fatal_fault(start_views_.view(g), faulting, killed_mask_, recovery);
  if (!killed_mask_[faulting]) {
    throw std::logic_error("sharing model '" + std::string(model_.name()) +
                           "' spared the process of a fatal fault");
  }
  ++stats_.fatal_faults;
  stats_.fatal_fault_kills += kill_marked(now, g, recovery, KillCause::kFatalFault);
}

void Engine::kill(Time now, JobSlot slot) {
  ActiveJob& job = jobs_[slot];
  for (GpuIndex g : job.gpus) touch(g, now);
  const double runtime = static_cast<double>(job.spec.runtime.us());
  const double done = runtime - job.remaining_us;
  const double interval = static_cast<double>(job.spec.checkpoint_interval.us());
  // Back to its last checkpoint: periodic, or the one a migration wrote.
  const double kept = std::max(interval > 0 ? std::floor(done / interval) * interval : 0.0,
                               std::min(job.checkpointed_us, done));
  job.remaining_us = runtime - kept;
  job.lost_work_us += done - kept;
  leave_gpus(now, slot);
  job.gpus.clear();
  job.checkpointing = false;  // a checkpoint cut short by the kill is not written
  ++job.kills;
  ++job.version;
  ++stats_.killed;
  for (auto* o : observers_) o->on_job_killed(now, job, done - kept);
  if (static_cast<int>(job.kills) > options_.retry_limit) {
    events_.cancel(slot);
    job.phase = JobPhase::kFree;
    ++stats_.failed;
    for (auto* o : observers_) o->on_job_failed(now, job);
    jobs_.release(slot);
    return;
  }
  job.phase = JobPhase::kRetryWait;
  events_.schedule(slot, now + options_.retry_delay, EventKind::kRetry, job.version);
}

}  // namespace gpumux
