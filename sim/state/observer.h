// Signals the engine emits for analysis. The engine, models and scheduler know nothing of
// metrics; collectors subscribe to these instead.
#pragma once

#include <span>
#include <string_view>

#include "sim/core/queue_reason.h"
#include "sim/core/service_gpu_context.h"
#include "sim/state/cluster.h"
#include "sim/state/job_table.h"
#include "sim/base/units.h"

namespace gpumux {

class EngineObserver {
 public:
  virtual ~EngineObserver() = default;
  virtual void on_job_arrived(Time /*now*/, const ActiveJob& /*job*/) {}
  // The job can never run on this cluster (e.g. gang larger than the cluster); it is dropped
  // from the queue and reported with `reason`.
  virtual void on_job_rejected(Time /*now*/, const ActiveJob& /*job*/,
                               std::string_view /*reason*/) {}
  virtual void on_job_started(Time /*now*/, const ActiveJob& /*job*/) {}
  virtual void on_job_finished(Time /*now*/, const ActiveJob& /*job*/) {}
  // Out of memory on `gpu`: `killed` jobs die (before they are removed from it).
  virtual void on_memory_fault(Time /*now*/, GpuIndex /*gpu*/, std::size_t /*killed*/) {}
  // A fatal GPU fault of a process on `gpu`: `killed` jobs die (the model's blast radius,
  // before they are removed from it).
  virtual void on_fatal_fault(Time /*now*/, GpuIndex /*gpu*/, std::size_t /*killed*/) {}
  // The job died; it lost `lost_work_us` of progress (back to its last checkpoint) and will
  // retry unless it has used up its retries, in which case on_job_failed follows.
  virtual void on_job_killed(Time /*now*/, const ActiveJob& /*job*/, double /*lost_work_us*/) {}
  virtual void on_job_failed(Time /*now*/, const ActiveJob& /*job*/) {}
  // The job left its GPUs, moved off a GPU being reconfigured (checkpoint-restart migration,
  // sim/core/sharing_model.h MigrationPlan), and is back in the queue; it lost `lost_work_us` of
  // progress (0 when it wrote a checkpoint) and spent `checkpoint` writing one.
  virtual void on_job_migrated(Time /*now*/, const ActiveJob& /*job*/, double /*lost_work_us*/,
                               Time /*checkpoint*/) {}
  // A reconfiguration of `gpu` was planned (drain starts), and later applied after `drain`
  // time waiting for it to empty plus `delay` (both known when on_gpu_reconfigured fires).
  virtual void on_gpu_drain_started(Time /*now*/, GpuIndex /*gpu*/) {}
  virtual void on_gpu_reconfigured(Time /*now*/, GpuIndex /*gpu*/, Time /*drain*/, Time /*delay*/) {
  }
  // The GPU was re-split in place as `plan` says (LayoutChanges::plan_resplit): `moved` of its
  // residents were checkpointed (plan.checkpoint each) and restarted in other slots of it, each
  // making no progress for plan.pause; `layout_changed`: into another layout, the GPU taking no
  // new job for plan.unavailable. on_gpu_changed follows with the new layout and slots.
  virtual void on_gpu_resplit(Time /*now*/, GpuIndex /*gpu*/, const Resplit& /*plan*/,
                              bool /*layout_changed*/, std::size_t /*moved*/) {}
  // The GPU's residents or their rates changed at `now`; `gpu` holds the new state.
  virtual void on_gpu_changed(Time /*now*/, GpuIndex /*index*/, const GpuState& /*gpu*/) {}
  // A service's (JobSpec::service) rate changed to job.rate at `now` (also right after it
  // starts). Emitted for services only, so runs without services pay nothing. `context`: on a
  // shared GPU with other residents, the slice or block schedule the service's requests meet
  // (ServiceContexts::slice_context / block_context; valid during the call only), else empty.
  virtual void on_service_rate_changed(Time /*now*/, const ActiveJob& /*job*/,
                                       const ServiceGpuContext& /*context*/) {}
  // Whether this observer hears on_queue_changed. The engine explains a blocked queue (one look
  // at the cluster per instant that ends with jobs queued) only when an observer asks for it.
  virtual bool wants_queue_reasons() const { return false; }
  // After the scheduling of instant `now`: `queued` jobs wait in the scheduler's queue (killed
  // and migrated jobs back in it included, jobs waiting out a retry delay not), and when
  // queued > 0, `reason` is why its head did not start (sim/core/queue_reason.h). Both hold
  // until the next call. Sent only when either changed, and only to observers that want it.
  virtual void on_queue_changed(Time /*now*/, std::size_t /*queued*/, QueueReason /*reason*/) {}
  // The run ends at `now`; `unfinished` lists jobs still queued or running.
  virtual void on_run_end(Time /*now*/, std::span<const ActiveJob* const> /*unfinished*/) {}
};

}  // namespace gpumux
