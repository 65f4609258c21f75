// Checkpoint-restart migration: a GPU chosen for reconfiguration is emptied by moving its
// residents off it instead of waiting for them to finish (sim/core/sharing_model.h, MigrationPlan).
// Kept apart from engine.cc so that the drain-only engine reads as before; the hooks there are
// the `checkpointing` and `stalled_until` checks in advance() and refresh_touched(), the kept
// work in start() and kill(), and the call from maybe_reconfigure().
#include <algorithm>
#include <cmath>

#include "sim/engine/engine.h"

namespace gpumux {

void Engine::migrate_residents(Time now, GpuIndex g, const MigrationPlan& plan) {
  touch(g, now);  // every resident's progress is up to date from here on
  moving_.assign(cluster_.gpu(g).residents.begin(), cluster_.gpu(g).residents.end());
  const double restart_us = static_cast<double>(plan.restart_time.us());
  for (JobSlot slot : moving_) {
    ActiveJob& job = jobs_[slot];
    // A service serves for a wall-clock lifetime: moving it only stops it serving (not modelled).
    if (job.spec.service || job.phase != JobPhase::kRunning || job.checkpointing) continue;
    const double stall =
        job.stalled_until > now ? static_cast<double>((job.stalled_until - now).us()) : 0.0;
    const double left_us = stall + job.remaining_us / job.rate;
    if (plan.checkpoint) {
      // Moving costs the job its checkpoint and restore: one that finishes sooner stays.
      if (left_us <= static_cast<double>(plan.checkpoint_time.us()) + restart_us) continue;
      job.checkpointing = true;
      job.checkpoint_time = plan.checkpoint_time;
      job.restart_time = plan.restart_time;
      job.expected_finish = now + plan.checkpoint_time;  // when it leaves (backfill estimates)
      ++job.version;  // its completion, memory step and fault events are void
      events_.schedule(slot, now + plan.checkpoint_time, EventKind::kCheckpointWritten,
                       job.version);
      continue;
    }
    // No checkpoint: back to the last one it has, periodic or from an earlier migration.
    const double runtime = static_cast<double>(job.spec.runtime.us());
    const double done = runtime - job.remaining_us;
    const double interval = static_cast<double>(job.spec.checkpoint_interval.us());
    const double kept = std::max(interval > 0 ? std::floor(done / interval) * interval : 0.0,
                                 std::min(job.checkpointed_us, done));
    const double lost = done - kept;
    // Moving costs the job the lost work again and its restore: one that finishes sooner stays.
    if (left_us <= lost / job.rate + restart_us) continue;
    job.remaining_us = runtime - kept;
    job.lost_work_us += lost;
    job.checkpoint_time = Time::zero();
    job.restart_time = plan.restart_time;
    evict(now, slot, lost);
  }
}

void Engine::on_checkpoint_written(Time now, JobSlot slot) {
  ActiveJob& job = jobs_[slot];
  job.checkpointed_us = done_us(job);
  evict(now, slot, 0.0);
}

void Engine::evict(Time now, JobSlot slot, double lost_us) {
  ActiveJob& job = jobs_[slot];
  for (GpuIndex g : job.gpus) touch(g, now);
  leave_gpus(now, slot);
  job.gpus.clear();
  job.checkpointing = false;
  ++job.migrations;
  ++job.version;
  events_.cancel(slot);
  ++stats_.migrations;
  job.phase = JobPhase::kQueued;
  for (auto* o : observers_) o->on_job_migrated(now, job, lost_us, job.checkpoint_time);
  scheduler_.requeue(slot, jobs_);
}

}  // namespace gpumux
