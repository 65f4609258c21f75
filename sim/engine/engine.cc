#include "sim/engine/engine.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/invariants/engine_invariants.h"
#include "sim/invariants/invariant_violation.h"

namespace gpumux {

Engine::Engine(Cluster& cluster, const SharingModel& model, Scheduler& scheduler, JobSource& source,
               EngineOptions options)
    : cluster_(cluster),
      model_(model),
      room_bound_(model.room_bound()),
      slot_layout_(model.slot_layout()),
      layout_changes_(model.layout_changes()),
      service_contexts_(model.service_contexts()),
      scheduler_(scheduler),
      source_(source),
      options_(options),
      fault_rate_per_us_(options.fatal_faults_per_gpu_hour / 3.6e9),
      fault_rng_(options.fault_seed),
      start_views_(cluster, jobs_) {
  if (!(options_.fatal_faults_per_gpu_hour >= 0.0)) {
    throw std::logic_error("engine: negative fatal fault rate");
  }
  scheduler_.set_pooled(cluster_.pooled());
  scheduler_.set_model(model_);
  events_.reserve(cluster_.gpu_count() * 2 + 16);
  gpu_touched_.assign(cluster_.gpu_count(), 0);
  if (layout_changes_ && layout_changes_->resplits()) gpu_vacated_.assign(cluster_.gpu_count(), 0);
  touched_.reserve(cluster_.gpu_count());
  running_.reserve(cluster_.gpu_count());
  gpus_per_device_.assign(cluster_.devices().size(), 0);
  gpus_per_layout_.assign(cluster_.devices().size(), {});
  for (std::size_t d = 0; d < cluster_.devices().size(); ++d) {
    gpus_per_layout_[d].assign(
        static_cast<std::size_t>(layout_count(model_, cluster_.devices()[d])), 0);
  }
  behind_head_.reserve(kReconfigurationLookahead);
  for (GpuIndex g = 0; g < cluster_.gpu_count(); ++g) {
    GpuState& gpu = cluster_.gpu(g);
    ++gpus_per_device_[gpu.device];
    const DeviceProfile& device = cluster_.device_of(g);
    gpu.layout = initial_layout(model_, device, gpu.index_in_node);
    if (gpu.layout < 0 || gpu.layout >= layout_count(model_, device)) {
      throw std::logic_error("sharing model '" + std::string(model_.name()) +
                             "' gave an initial layout out of range");
    }
    ++gpus_per_layout_[gpu.device][static_cast<std::size_t>(gpu.layout)];
    update_room(g);
  }
}

bool Engine::is_stale(const Event& ev) const {
  switch (ev.kind) {
    case EventKind::kCompletion:
    case EventKind::kMemoryChange:
    case EventKind::kFatalFault: {
      const ActiveJob& job = jobs_[ev.target];
      return job.phase != JobPhase::kRunning || job.version != ev.version;
    }
    case EventKind::kCheckpointWritten: {
      const ActiveJob& job = jobs_[ev.target];
      return job.phase != JobPhase::kRunning || job.version != ev.version || !job.checkpointing;
    }
    case EventKind::kArrival:
    case EventKind::kRetry:
    case EventKind::kGpuRecovered:
    case EventKind::kGpuReconfigured:
    case EventKind::kGpuResplit:
      break;
  }
  return false;
}

void Engine::drop_stale_top() {
  while (!events_.empty() && is_stale(events_.top())) {
    if (options_.check_invariants) {
      const Event& ev = events_.top();
      throw InvariantViolation(
          "a superseded event of job '" + jobs_[ev.target].spec.id + "' was left pending (kind " +
          std::to_string(static_cast<int>(ev.kind)) + ", " + invariant_time_text(ev.time) + ")");
    }
    events_.pop();
    ++stats_.events;
    ++stats_.stale_events;
  }
}

void Engine::update_room(GpuIndex g) {
  if (room_bound_) cluster_.set_room(g, room_bound_->gpu_room(start_views_.view(g)));
}

EngineStats Engine::run() {
  if (pull_next_arrival()) events_.push(pending_.submit, EventKind::kArrival);
  Time now = Time::zero();
  while (true) {
    drop_stale_top();
    if (events_.empty()) break;
    if (events_.top().time > options_.horizon) {
      stats_.hit_horizon = true;
      now = options_.horizon;
      break;
    }
    const Event ev = events_.pop();
    now = ev.time;
    now_ = now;
    ++stats_.events;
    switch (ev.kind) {
      case EventKind::kArrival:
        on_arrival(now);
        break;
      case EventKind::kCompletion:
        on_completion(now, ev.target);
        break;
      case EventKind::kMemoryChange:
        on_memory_change(now, ev.target);
        break;
      case EventKind::kFatalFault:
        on_fatal_fault(now, ev.target);
        break;
      case EventKind::kCheckpointWritten:
        on_checkpoint_written(now, ev.target);
        break;
      case EventKind::kRetry: {
        ActiveJob& job = jobs_[ev.target];
        if (job.phase != JobPhase::kRetryWait || job.version != ev.version) {
          throw std::logic_error("engine: retry event for a job that is not waiting to retry");
        }
        job.phase = JobPhase::kQueued;
        scheduler_.requeue(ev.target, jobs_);
        break;
      }
      case EventKind::kGpuRecovered: {
        GpuState& gpu = cluster_.gpu(ev.target);
        gpu.recovering = false;
        if (gpu.draining) {
          maybe_start_reconfiguration(now, ev.target);
        } else if (!gpu.resplitting) {  // a re-split in place ends with kGpuResplit
          cluster_.set_available(ev.target, true);
        }
        for (auto* o : observers_) o->on_gpu_changed(now, ev.target, gpu);
        break;
      }
      case EventKind::kGpuResplit:
        on_resplit_done(now, ev.target);
        break;
      case EventKind::kGpuReconfigured: {
        GpuState& gpu = cluster_.gpu(ev.target);
        gpu.layout = gpu.pending_layout;
        gpu.reconfiguring = false;
        gpu.draining = false;
        gpu.last_reconfigured = now;
        update_room(ev.target);
        cluster_.set_available(ev.target, true);
        --reconfigurations_in_flight_;
        ++stats_.reconfigurations;
        for (auto* o : observers_) {
          o->on_gpu_reconfigured(now, ev.target, now - gpu.pending_delay - gpu.drain_started,
                                 gpu.pending_delay);
          o->on_gpu_changed(now, ev.target, gpu);
        }
        break;
      }
    }
    // Decide once all events of this instant are in: simultaneous finishes free their GPUs
    // before anyone is placed. Kills (out of memory, faults) free GPUs too: decide again until
    // the instant is quiet; each job is killed at most retry_limit + 1 times, so this ends.
    // Stale events are dropped first: the instant ends with its last real event.
    drop_stale_top();
    if (events_.empty() || events_.top().time != now) {
      schedule_until_quiet(now);
      maybe_reconfigure(now);
      if (!vacated_.empty()) maybe_resplit(now);
      if (!queue_listeners_.empty()) explain_queue(now);
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

void Engine::explain_queue(Time now) {
  const std::size_t queued = scheduler_.queued();
  // After the reconfiguration plan: GPUs it set draining are out of service until the next event.
  const QueueReason reason = queued > 0
                                 ? scheduler_.blocked_reason(cluster_, model_, jobs_, start_views_)
                                 : told_reason_;
  if (queued == told_queued_ && reason == told_reason_) return;
  told_queued_ = queued;
  told_reason_ = reason;
  for (auto* o : queue_listeners_) o->on_queue_changed(now, queued, reason);
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
  if (cluster_.pooled()) {
    const PoolAmount need = pool_request(job);
    if (need.gpu > cluster_.pool_capacity().gpu) return "GPU amount larger than the pool";
    if (need.cpu > cluster_.pool_capacity().cpu) return "CPU cores more than the pool has";
    return nullptr;
  }
  if (job.gpus == 0) return cpu_only_unplaceable_reason(job);
  if (job.gpus < 1) return "gang size below 1";
  if (static_cast<std::size_t>(job.gpus) > cluster_.gpu_count()) {
    return "gang larger than the cluster";
  }
  if (cluster_.tracks_cpus() && !cluster_.cpus_could_fit(job_cpu_hundredths(job), job.gpus)) {
    return "CPU cores more than the nodes that could hold the gang have";
  }
  // The GPUs that admit the job when empty: the best the job can ever get. A model that
  // repartitions can give any GPU of a device any of its layouts; otherwise each GPU keeps the
  // layout it started with (half of a node split into MIG instances, half whole: a gang of
  // more GPUs than the whole half can never start, and would wait forever).
  std::size_t usable = 0;
  const std::vector<const JobSpec*> none;
  const bool any_layout = layout_changes_ && layout_changes_->reconfigures();
  for (std::size_t d = 0; d < cluster_.devices().size(); ++d) {
    const DeviceProfile& device = cluster_.devices()[d];
    for (int layout = 0; layout < layout_count(model_, device); ++layout) {
      const GpuView empty{device, none, MemoryMiB(0), {}, layout};
      if (!model_.admits(empty, job)) continue;
      if (any_layout) {
        usable += gpus_per_device_[d];
        break;
      }
      usable += gpus_per_layout_[d][static_cast<std::size_t>(layout)];
    }
  }
  if (usable == 0) {
    return "no GPU of the cluster admits it even when empty, in any layout (memory or profile)";
  }
  if (usable < static_cast<std::size_t>(job.gpus)) {
    return "gang larger than the number of GPUs that admit it";
  }
  return nullptr;
}

const char* Engine::cpu_only_unplaceable_reason(const JobSpec& job) const {
  if (!cluster_.tracks_cpus() || cluster_.most_declared_cpu_capacity() < 0) {
    return "CPU-only job (0 GPUs): no node declares CPU cores (node group cpus, nodes CSV "
           "cpus) and the cluster is not pooled (cluster.pool)";
  }
  const std::int64_t cpu = job_cpu_hundredths(job);
  if (cpu <= 0) return "CPU-only job (0 GPUs) asking for no CPU cores: nothing to hold";
  if (cpu > cluster_.most_declared_cpu_capacity()) {
    return "CPU-only job (0 GPUs): more CPU cores than any node that declares CPUs has";
  }
  return nullptr;
}

void Engine::on_arrival(Time now) {
  const JobSlot slot = jobs_.acquire();
  ActiveJob& job = jobs_[slot];
  // One move (a swap is three): every source fills the whole record it is handed, so what the
  // move leaves in pending_ is overwritten by the next pull.
  job.spec = std::move(pending_);
  job.ordinal = stats_.arrived++;
  job.phase = JobPhase::kQueued;
  for (auto* o : observers_) o->on_job_arrived(now, job);
  if (const char* reason = unplaceable_reason(job.spec)) {
    ++stats_.rejected;
    for (auto* o : observers_) o->on_job_rejected(now, job, reason);
    jobs_.release(slot);
  } else {
    scheduler_.enqueue(slot, jobs_);
  }
  if (pull_next_arrival()) events_.push(pending_.submit, EventKind::kArrival);
}

double Engine::progress_since_update(const ActiveJob& job, Time now) {
  const Time from = job.checkpointing ? now : std::max(job.last_update, job.stalled_until);
  const double elapsed = now > from ? static_cast<double>((now - from).us()) : 0.0;
  return progress_rate(job) * elapsed;
}

void Engine::advance(ActiveJob& job, Time now) {
  if (job.phase != JobPhase::kRunning) return;
  job.remaining_us = std::max(0.0, job.remaining_us - progress_since_update(job, now));
  job.last_update = now;
}

void Engine::schedule_until_quiet(Time now) {
  do {
    scheduler_.schedule(now, cluster_, model_, jobs_, running_, *this);
  } while (refresh_touched(now));
}

void Engine::touch(GpuIndex gpu, Time now) {
  if (gpu_touched_[gpu]) return;
  gpu_touched_[gpu] = 1;
  touched_.push_back(gpu);
  for (JobSlot s : cluster_.gpu(gpu).residents) advance(jobs_[s], now);
}

void Engine::start(JobSlot slot, std::span<const GpuIndex> gpus) {
  ActiveJob& job = jobs_[slot];
  // A restart (after a kill or a migration) keeps its first start and the work it kept.
  if (job.kills == 0 && job.migrations == 0) {
    job.start = now_;
    job.remaining_us = static_cast<double>(job.spec.runtime.us());
  }
  job.stalled_until = now_ + job.restart_time;  // a migrated job restores its checkpoint first
  job.restart_time = Time::zero();
  if (cluster_.pooled()) {
    start_in_pool(job, slot);
    return;
  }
  job.current_memory = memory_at(job, done_us(job));
  for (GpuIndex g : gpus) {
    touch(g, now_);
    const int held = slot_layout_ ? slot_layout_->choose_slot(start_views_.view(g), job.spec) : 0;
    cluster_.add_resident(g, slot, job.current_memory, held);
    update_room(g);
  }
  if (cluster_.tracks_cpus()) cluster_.take_cpus(gpus, job_cpu_hundredths(job.spec));
  job.gpus.assign(gpus.begin(), gpus.end());
  job.phase = JobPhase::kRunning;
  job.last_update = now_;
  job.rate = 1.0;
  job.span = cluster_.topology().group_span(job.gpus);
  job.fault_at = fault_rate_per_us_ > 0.0 ? draw_fault_time(job, now_) : Time::infinity();
  if (!options_.injected_faults.empty() && job.kills == 0) apply_injected_faults(job);
  job.running_index = static_cast<std::uint32_t>(running_.size());
  running_.push_back(slot);
  ++stats_.started;
  for (auto* o : observers_) o->on_job_started(now_, job);
}

void Engine::start_in_pool(ActiveJob& job, JobSlot slot) {
  // A pooled job holds an amount of the pool, no GPU, and runs at full speed until it ends:
  // nothing it shares can slow it, so its completion is known now (no rate refresh, no memory
  // steps, no faults: those are events of GPUs).
  cluster_.pool_take(pool_request(job.spec));
  start_at_full_speed(job, slot);
}

void Engine::start_on_node(JobSlot slot, NodeIndex node) {
  ActiveJob& job = jobs_[slot];
  // As a pooled job: no GPU, nothing it shares can slow it (faults, memory steps and rate
  // refreshes are events of GPUs), so its completion is known now. Never killed or migrated.
  job.start = now_;
  job.remaining_us = static_cast<double>(job.spec.runtime.us());
  job.stalled_until = now_;
  cluster_.take_node_cpus(node, job_cpu_hundredths(job.spec));
  job.cpu_node = node;
  start_at_full_speed(job, slot);
}

void Engine::start_at_full_speed(ActiveJob& job, JobSlot slot) {
  job.gpus.clear();
  job.phase = JobPhase::kRunning;
  job.last_update = now_;
  job.rate = 1.0;
  job.span = LinkKind::kSameGpu;
  job.fault_at = Time::infinity();
  job.current_memory = MemoryMiB(0);
  job.running_index = static_cast<std::uint32_t>(running_.size());
  running_.push_back(slot);
  ++job.version;
  const double us = std::ceil(job.remaining_us);
  job.expected_finish =
      checked_after(now_, us, [&] { return "job '" + job.spec.id + "' finishing"; });
  events_.schedule(slot, job.expected_finish, EventKind::kCompletion, job.version);
  ++stats_.started;
  for (auto* o : observers_) o->on_job_started(now_, job);
}

void Engine::on_completion(Time now, JobSlot slot) {
  ActiveJob& job = jobs_[slot];
  if (options_.check_invariants) {
    check_completion_work(job, job.remaining_us - progress_since_update(job, now),
                          progress_rate(job), now);
  }
  if (cluster_.pooled()) {
    advance(job, now);
    job.remaining_us = 0.0;
    cluster_.pool_give(pool_request(job.spec));
    remove_running(slot);
    job.phase = JobPhase::kFree;
    ++stats_.finished;
    for (auto* o : observers_) o->on_job_finished(now, job);
    jobs_.release(slot);
    return;
  }
  for (GpuIndex g : job.gpus) {
    touch(g, now);
    if (!gpu_vacated_.empty() && !gpu_vacated_[g]) {
      gpu_vacated_[g] = 1;
      vacated_.push_back(g);
    }
  }
  job.remaining_us = 0.0;
  leave_gpus(now, slot);
  job.phase = JobPhase::kFree;  // no longer resident; observers still read its record
  ++stats_.finished;
  for (auto* o : observers_) o->on_job_finished(now, job);
  jobs_.release(slot);
}

double Engine::done_us(const ActiveJob& job) const {
  return static_cast<double>(job.spec.runtime.us()) - job.remaining_us;
}

MemoryMiB Engine::memory_at(const ActiveJob& job, double done) const {
  if (!job.spec.memory_profile) return job.spec.memory;
  const double fraction = job.spec.memory_profile->fraction_at(done);
  return MemoryMiB(static_cast<std::int64_t>(
      std::llround(fraction * static_cast<double>(job.spec.memory.mib()))));
}

void Engine::on_memory_change(Time now, JobSlot slot) {
  ActiveJob& job = jobs_[slot];
  for (GpuIndex g : job.gpus) touch(g, now);
  // The event time was rounded up, so progress is at or past the step; never before it.
  const double done = std::max(done_us(job), job.next_memory_change_us);
  const MemoryMiB after = memory_at(job, done);
  for (GpuIndex g : job.gpus) {
    cluster_.change_memory(g, job.current_memory, after);
    if (after > job.current_memory) cluster_.mark_asked(g, slot);  // it allocates the rise
  }
  job.current_memory = after;
  for (GpuIndex g : job.gpus) update_room(g);
}

void Engine::remove_running(JobSlot slot) {
  const std::uint32_t i = jobs_[slot].running_index;
  running_[i] = running_.back();
  jobs_[running_[i]].running_index = i;
  running_.pop_back();
}

bool Engine::refresh_touched(Time now) {
  if (touched_.empty()) return false;
  ++refresh_epoch_;
  affected_.clear();
  GpuViewBuilder views(cluster_, jobs_);
  bool killed = false;
  // Index loop: a kill touches the victim's other GPUs, appending to touched_.
  for (std::size_t t = 0; t < touched_.size(); ++t) {
    const GpuIndex g = touched_[t];
    gpu_touched_[g] = 0;
    killed = check_memory(now, g, views) || killed;
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
    if (options_.check_invariants) check_gpu_invariants(g, cluster_, jobs_, model_, now);
    for (auto* o : observers_) o->on_gpu_changed(now, g, gpu);
  }
  touched_.clear();
  for (JobSlot s : affected_) {
    ActiveJob& job = jobs_[s];
    if (job.phase != JobPhase::kRunning) continue;  // killed after its rate was recomputed
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
    if (job.checkpointing) continue;  // its pending event is the checkpoint's end
    ++job.version;
    if (job.spec.service) {
      // A single-GPU service on a shared GPU is served from the slice or block schedule.
      ServiceGpuContext context;
      if (job.gpus.size() == 1) {
        const GpuIndex g = job.gpus[0];
        const GpuState& gpu = cluster_.gpu(g);
        const auto pos = std::find(gpu.residents.begin(), gpu.residents.end(), s);
        const auto resident = static_cast<std::size_t>(pos - gpu.residents.begin());
        // Without the facet (or a schedule) its requests progress at the fluid rate.
        const ServiceContexts* contexts = service_contexts_;
        if (contexts && contexts->slice_context(views.view(g), resident, service_slices_)) {
          context.slices = &service_slices_;
        } else if (contexts && contexts->block_context(views.view(g), resident, service_blocks_)) {
          context.blocks = &service_blocks_;
        }
      }
      for (auto* o : observers_) o->on_service_rate_changed(now, job, context);
    }
    const double progress = progress_rate(job);
    // A job restoring a migration checkpoint starts progressing when the restore ends.
    const double stall =
        job.stalled_until > now ? static_cast<double>((job.stalled_until - now).us()) : 0.0;
    const double us = stall + std::ceil(job.remaining_us / progress);
    job.expected_finish =
        checked_after(now, us, [&] { return "job '" + job.spec.id + "' finishing"; });
    // One pending event per job: its completion, or its next memory step if that comes first,
    // or its fatal fault if that comes before either.
    Time at = job.expected_finish;
    EventKind kind = EventKind::kCompletion;
    job.next_memory_change_us = MemoryProfile::kNever;
    if (job.spec.memory_profile) {
      const double done = done_us(job);
      const double next = job.spec.memory_profile->next_change_after(done);
      if (next < static_cast<double>(job.spec.runtime.us())) {
        job.next_memory_change_us = next;
        const double wait = stall + std::ceil((next - done) / progress);
        const Time step = wait < us ? now + Time::from_us(static_cast<std::int64_t>(wait))
                                    : job.expected_finish;  // the step is no earlier
        if (step < at) {
          at = step;
          kind = EventKind::kMemoryChange;
        }
      }
    }
    if (job.fault_at < at) {
      at = job.fault_at;
      kind = EventKind::kFatalFault;
    }
    events_.schedule(s, at, kind, job.version);
  }
  return killed;
}

void Engine::leave_gpus(Time now, JobSlot slot) {
  ActiveJob& job = jobs_[slot];
  if (cluster_.tracks_cpus()) {
    if (job.gpus.empty()) {
      cluster_.give_node_cpus(job.cpu_node, job_cpu_hundredths(job.spec));  // CPU-only
    } else {
      cluster_.give_cpus(job.gpus, job_cpu_hundredths(job.spec));
    }
  }
  for (GpuIndex g : job.gpus) {
    cluster_.remove_resident(g, slot, job.current_memory);
    update_room(g);
    maybe_start_reconfiguration(now, g);
  }
  remove_running(slot);
}

}  // namespace gpumux
