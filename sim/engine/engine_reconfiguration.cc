// Repartitioning GPUs (MIG): asking the model for a new layout when the queue's head does not
// fit, draining the GPU, and starting the reconfiguration once it is empty. Moving residents off
// instead of waiting is engine_migration.cc. Kept apart from engine.cc, the event loop and starts.
#include <stdexcept>
#include <string>

#include "sim/engine/engine.h"

namespace gpumux {

void Engine::maybe_reconfigure(Time now) {
  if (!layout_changes_ || !layout_changes_->reconfigures() || scheduler_.queued() == 0 ||
      reconfigurations_in_flight_ >= options_.max_reconfigurations_in_flight) {
    return;
  }
  GpuViewBuilder views(cluster_, jobs_);
  Reconfiguration r;
  behind_head_.clear();
  scheduler_.front(kReconfigurationLookahead + 1, front_);
  // A CPU-only head waits for cores, which no GPU layout gives.
  if (jobs_[front_[0]].spec.gpus == 0) return;
  for (std::size_t i = 1; i < front_.size(); ++i) behind_head_.push_back(&jobs_[front_[i]].spec);
  if (!layout_changes_->plan_reconfiguration(now, cluster_, views, jobs_[front_[0]].spec,
                                             behind_head_, r)) {
    return;
  }
  GpuState& gpu = cluster_.gpu(r.gpu);
  if (gpu.draining || gpu.recovering || r.layout < 0 ||
      r.layout >= layout_count(model_, cluster_.device_of(r.gpu))) {
    throw std::logic_error("sharing model '" + std::string(model_.name()) +
                           "' planned an impossible reconfiguration");
  }
  // Moving the residents in place, around the head, when the model re-splits GPUs in place.
  if (r.migration.enabled && resplit_for(now, r.gpu, jobs_[front_[0]].spec)) return;
  ++reconfigurations_in_flight_;
  gpu.draining = true;
  gpu.pending_layout = r.layout;
  gpu.pending_delay = r.delay;
  gpu.drain_started = now;
  cluster_.set_available(r.gpu, false);
  for (auto* o : observers_) o->on_gpu_drain_started(now, r.gpu);
  maybe_start_reconfiguration(now, r.gpu);
  if (r.migration.enabled) {
    migrate_residents(now, r.gpu, r.migration);
    // Jobs moved without a checkpoint are queued again now: place them before time moves on.
    schedule_until_quiet(now);
  }
}

void Engine::maybe_start_reconfiguration(Time now, GpuIndex g) {
  GpuState& gpu = cluster_.gpu(g);
  if (!gpu.draining || gpu.reconfiguring || gpu.recovering || !gpu.residents.empty()) return;
  gpu.reconfiguring = true;
  events_.push(now + gpu.pending_delay, EventKind::kGpuReconfigured, g);
}

}  // namespace gpumux
