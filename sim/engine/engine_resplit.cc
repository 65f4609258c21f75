// Re-splitting a GPU in place (LayoutChanges::plan_resplit): when a job finishes and nothing
// waits, the residents left may move into other slots of the same GPU (MIG: the larger instances
// a re-split or a freed instance offers); when a reconfiguration with migration makes room for
// the queue's head, the residents may be re-split around it instead of moved off. Each moved
// resident is checkpointed and restarted in its new slot. Unlike a migration
// (engine_migration.cc) the residents never leave the GPU or return to the queue. Kept apart
// from engine.cc; the hooks there are the vacated_ list filled in on_completion and the call
// after each instant's scheduling, and the call from maybe_reconfigure.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/engine/engine.h"

namespace gpumux {

bool Engine::movable_work_left(Time now, GpuIndex g) {
  const GpuState& gpu = cluster_.gpu(g);
  work_left_.clear();
  if (gpu.residents.empty() || !gpu.available || gpu.draining || gpu.reconfiguring ||
      gpu.recovering || gpu.resplitting) {
    return false;
  }
  for (JobSlot s : gpu.residents) {
    const ActiveJob& job = jobs_[s];
    if (job.phase != JobPhase::kRunning || job.spec.service || job.checkpointing ||
        job.gpus.size() != 1) {
      return false;
    }
    // Counted without advancing the job: the GPU is not touched unless the model proposes a
    // move, so that a GPU left alone keeps its pending events.
    work_left_.push_back(std::max(0.0, job.remaining_us - progress_since_update(job, now)));
  }
  return true;
}

void Engine::maybe_resplit(Time now) {
  // Jobs waiting take what a finished job freed first: a re-split would hand it to residents.
  const bool quiet = scheduler_.queued() == 0;
  bool any = false;
  // vacated_ fills only under a model that re-splits (gpu_vacated_ is sized for it).
  for (GpuIndex g : vacated_) {
    gpu_vacated_[g] = 0;
    if (!quiet || !movable_work_left(now, g)) continue;
    if (!layout_changes_->plan_resplit(start_views_.view(g), work_left_, nullptr, resplit_))
      continue;
    resplit_in_place(now, g, resplit_);
    any = true;
  }
  vacated_.clear();
  if (!any) return;
  // The moved residents' rates and events; a fault of the new slots' memory frees GPUs too.
  schedule_until_quiet(now);
}

bool Engine::resplit_for(Time now, GpuIndex g, const JobSpec& head) {
  if (!layout_changes_ || !layout_changes_->resplits() || !movable_work_left(now, g)) return false;
  if (!layout_changes_->plan_resplit(start_views_.view(g), work_left_, &head, resplit_))
    return false;
  resplit_in_place(now, g, resplit_);
  // The head (and whoever else fits) starts in what the re-split left free.
  schedule_until_quiet(now);
  return true;
}

void Engine::resplit_in_place(Time now, GpuIndex g, const Resplit& plan) {
  GpuState& gpu = cluster_.gpu(g);
  const DeviceProfile& device = cluster_.device_of(g);
  if (plan.layout < 0 || plan.layout >= layout_count(model_, device) ||
      plan.slots.size() != gpu.residents.size() || plan.moved.size() != gpu.residents.size() ||
      plan.pause < plan.checkpoint ||
      std::none_of(plan.moved.begin(), plan.moved.end(), [](std::uint8_t m) { return m != 0; })) {
    throw std::logic_error("sharing model '" + std::string(model_.name()) +
                           "' planned an impossible re-split");
  }
  touch(g, now);  // every resident's progress is up to date from here on
  std::size_t moved = 0;
  for (std::size_t k = 0; k < gpu.residents.size(); ++k) {
    if (plan.moved[k] == 0) continue;
    ActiveJob& job = jobs_[gpu.residents[k]];
    // No progress while it writes its checkpoint, the instances are made and it restores.
    job.stalled_until = std::max(job.stalled_until, now) + plan.pause;
    ++job.migrations;
    ++moved;
  }
  const bool layout_changed = plan.layout != gpu.layout;
  cluster_.resplit(g, plan.layout, plan.slots);
  if (layout_changed) {
    gpu.last_reconfigured = now;
    ++stats_.reconfigurations;
  }
  stats_.migrations += moved;
  update_room(g);
  if (plan.unavailable > Time::zero()) {
    // No new job until the instances are made; one reconfiguration in flight meanwhile.
    cluster_.set_available(g, false);
    gpu.resplitting = true;
    ++reconfigurations_in_flight_;
    events_.push(now + plan.unavailable, EventKind::kGpuResplit, g);
  }
  for (auto* o : observers_) o->on_gpu_resplit(now, g, plan, layout_changed, moved);
}

void Engine::on_resplit_done(Time now, GpuIndex g) {
  --reconfigurations_in_flight_;
  cluster_.gpu(g).resplitting = false;
  // A GPU that faulted meanwhile comes back when its recovery ends (kGpuRecovered).
  if (!cluster_.gpu(g).recovering) cluster_.set_available(g, true);
  update_room(g);
  for (auto* o : observers_) o->on_gpu_changed(now, g, cluster_.gpu(g));
}

}  // namespace gpumux
