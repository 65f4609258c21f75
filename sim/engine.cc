#include "sim/engine.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gpumux {

Engine::Engine(Cluster& cluster, const SharingModel& model, Scheduler& scheduler,
               JobSource& source, EngineLimits limits)
    : cluster_(cluster),
      model_(model),
      scheduler_(scheduler),
      source_(source),
      limits_(limits) {
  events_.reserve(cluster_.gpu_count() * 2 + 16);
  gpu_touched_.assign(cluster_.gpu_count(), 0);
  touched_.reserve(cluster_.gpu_count());
  running_.reserve(cluster_.gpu_count());
  gpus_per_device_.assign(cluster_.devices().size(), 0);
  for (GpuIndex g = 0; g < cluster_.gpu_count(); ++g) ++gpus_per_device_[cluster_.gpu(g).device];
}

EngineStats Engine::run() {
  if (pull_next_arrival()) events_.push(pending_.submit, EventKind::kArrival);
  Time now = Time::zero();
  while (!events_.empty()) {
    if (events_.top().time > limits_.horizon) {
      stats_.hit_horizon = true;
      now = limits_.horizon;
      break;
    }
    const Event ev = events_.pop();
    now = ev.time;
    now_ = now;
    ++stats_.events;
    if (ev.kind == EventKind::kArrival) {
      on_arrival(now);
    } else {
      ActiveJob& job = jobs_[ev.target];
      if (job.phase != JobPhase::kRunning || job.version != ev.version) {
        ++stats_.stale_events;
        continue;
      }
      on_completion(now, ev.target);
    }
    // Decide once all events of this instant are in: simultaneous finishes free their GPUs
    // before anyone is placed.
    if (events_.empty() || events_.top().time != now) {
      scheduler_.schedule(now, cluster_, model_, jobs_, running_, *this);
      refresh_touched(now);
    }
  }
  if (!stats_.hit_horizon && !running_.empty()) {
    throw std::logic_error("engine: event queue drained while jobs still run");
  }
  if (!stats_.hit_horizon && scheduler_.queued() > 0) {
    throw std::logic_error("engine: jobs left queued on an idle cluster");
  }
  for (JobSlot s : running_) advance(jobs_[s], now);
  stats_.end_time = now;
  std::vector<const ActiveJob*> unfinished;
  for (JobSlot s = 0; s < jobs_.capacity(); ++s) {
    if (jobs_[s].phase != JobPhase::kFree) unfinished.push_back(&jobs_[s]);
  }
  std::sort(unfinished.begin(), unfinished.end(),
            [](const ActiveJob* a, const ActiveJob* b) { return a->ordinal < b->ordinal; });
  for (auto* o : observers_) o->on_run_end(now, unfinished);
  return stats_;
}

bool Engine::pull_next_arrival() {
  has_pending_ = source_.next(pending_);
  if (!has_pending_) return false;
  if (pending_.submit < last_submit_) {
    throw std::logic_error("engine: job source yielded a decreasing submit time");
  }
  last_submit_ = pending_.submit;
  return true;
}

const char* Engine::unplaceable_reason(const JobSpec& job) {
  if (job.gpus < 1) return "gang size below 1";
  if (static_cast<std::size_t>(job.gpus) > cluster_.gpu_count()) {
    return "gang larger than the cluster";
  }
  // The GPUs whose device admits the job when empty: the best the job can ever get.
  std::size_t usable = 0;
  const std::vector<const JobSpec*> none;
  for (std::size_t d = 0; d < cluster_.devices().size(); ++d) {
    const GpuView empty{cluster_.devices()[d], none, MemoryMiB(0)};
    if (model_.admits(empty, job)) usable += gpus_per_device_[d];
  }
  if (usable == 0) return "no GPU of the cluster admits it even when empty (memory or profile)";
  if (usable < static_cast<std::size_t>(job.gpus)) {
    return "gang larger than the number of GPUs that admit it";
  }
  return nullptr;
}

void Engine::on_arrival(Time now) {
  const JobSlot slot = jobs_.acquire();
  ActiveJob& job = jobs_[slot];
  std::swap(job.spec, pending_);  // keeps the recycled slot's string storage in circulation
  job.ordinal = stats_.arrived++;
  job.phase = JobPhase::kQueued;
  for (auto* o : observers_) o->on_job_arrived(now, job);
  if (const char* reason = unplaceable_reason(job.spec)) {
    ++stats_.rejected;
    for (auto* o : observers_) o->on_job_rejected(now, job, reason);
    jobs_.release(slot);
  } else {
    scheduler_.enqueue(slot);
  }
  if (pull_next_arrival()) events_.push(pending_.submit, EventKind::kArrival);
}

void Engine::advance(ActiveJob& job, Time now) {
  if (job.phase != JobPhase::kRunning) return;
  const double elapsed = static_cast<double>((now - job.last_update).us());
  job.remaining_us = std::max(0.0, job.remaining_us - job.rate * elapsed);
  job.last_update = now;
}

void Engine::touch(GpuIndex gpu, Time now) {
  if (gpu_touched_[gpu]) return;
  gpu_touched_[gpu] = 1;
  touched_.push_back(gpu);
  for (JobSlot s : cluster_.gpu(gpu).residents) advance(jobs_[s], now);
}

void Engine::start(JobSlot slot, std::span<const GpuIndex> gpus) {
  ActiveJob& job = jobs_[slot];
  for (GpuIndex g : gpus) {
    touch(g, now_);
    cluster_.add_resident(g, slot, job.spec.memory);
  }
  job.gpus.assign(gpus.begin(), gpus.end());
  job.phase = JobPhase::kRunning;
  job.start = now_;
  job.last_update = now_;
  job.remaining_us = static_cast<double>(job.spec.runtime.us());
  job.rate = 1.0;
  job.span = cluster_.topology().group_span(job.gpus);
  job.running_index = static_cast<std::uint32_t>(running_.size());
  running_.push_back(slot);
  ++stats_.started;
  for (auto* o : observers_) o->on_job_started(now_, job);
}

void Engine::on_completion(Time now, JobSlot slot) {
  ActiveJob& job = jobs_[slot];
  for (GpuIndex g : job.gpus) touch(g, now);
  job.remaining_us = 0.0;
  for (GpuIndex g : job.gpus) cluster_.remove_resident(g, slot, job.spec.memory);
  remove_running(slot);
  job.phase = JobPhase::kFree;  // no longer resident; observers still read its record
  ++stats_.finished;
  for (auto* o : observers_) o->on_job_finished(now, job);
  jobs_.release(slot);
}

void Engine::remove_running(JobSlot slot) {
  const std::uint32_t i = jobs_[slot].running_index;
  running_[i] = running_.back();
  jobs_[running_[i]].running_index = i;
  running_.pop_back();
}

void Engine::refresh_touched(Time now) {
  if (touched_.empty()) return;
  ++refresh_epoch_;
  affected_.clear();
  GpuViewBuilder views(cluster_, jobs_);
  for (GpuIndex g : touched_) {
    gpu_touched_[g] = 0;
    GpuState& gpu = cluster_.gpu(g);
    if (!gpu.residents.empty()) {
      model_.compute_rates(views.view(g), gpu.rates, gpu.load);
      for (JobSlot s : gpu.residents) {
        if (jobs_[s].refresh_mark != refresh_epoch_) {
          jobs_[s].refresh_mark = refresh_epoch_;
          affected_.push_back(s);
        }
      }
    }
    for (auto* o : observers_) o->on_gpu_changed(now, g, gpu);
  }
  touched_.clear();
  for (JobSlot s : affected_) {
    ActiveJob& job = jobs_[s];
    double rate = 1.0;
    for (GpuIndex g : job.gpus) {
      const GpuState& gpu = cluster_.gpu(g);
      const auto pos = std::find(gpu.residents.begin(), gpu.residents.end(), s);
      rate = std::min(rate, gpu.rates[pos - gpu.residents.begin()]);
    }
    if (!(rate > 0.0 && rate <= 1.0)) {
      throw std::logic_error("sharing model '" + std::string(model_.name()) +
                             "' gave a rate outside (0, 1]: " + std::to_string(rate));
    }
    job.rate = rate;
    ++job.version;
    const double us = std::ceil(job.remaining_us / rate);
    job.expected_finish = now + Time::from_us(static_cast<std::int64_t>(us));
    events_.push(job.expected_finish, EventKind::kCompletion, s, job.version);
  }
}

}  // namespace gpumux
