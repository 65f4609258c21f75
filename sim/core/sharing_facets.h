// The optional parts of a sharing model, each a facet the model provides or not
// (SharingModel::room_bound, slot_layout, layout_changes, service_contexts return it, or null):
// - RoomBound: placement pruning by a per-GPU room and a per-job need;
// - SlotLayout: GPUs split into slots (MIG instances) under one of several layouts;
// - LayoutChanges: repartitioning a GPU (drained or migrated) or re-splitting it in place;
// - ServiceContexts: the slice or block schedule a request-level service meets on a shared GPU.
// A model without a facet behaves as the facet's absence says (every job may fit, one layout
// and no slots, layouts never change, requests progress at the fluid rate), so the engine and
// placement ask a facet only where it exists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "sim/base/units.h"
#include "sim/core/device.h"
#include "sim/core/gpu_view.h"
#include "sim/core/job.h"
#include "sim/core/layout_change.h"
#include "sim/core/queue_reason.h"
#include "sim/core/service_gpu_context.h"

namespace gpumux {

class Cluster;
class GpuViewBuilder;

// Placement pruning. A model that provides it promises, for every view and job: admits(gpu,
// job) implies job_need(job) <= gpu_room(gpu). The engine keeps each GPU's room up to date
// (GpuState::room) and placement skips GPUs and whole nodes whose room is below a job's need
// without asking `admits`, so the answer is the same, found faster. Units are the model's (e.g.
// MiB of the largest free MIG instance). Views passed carry resident slots.
class RoomBound {
 public:
  virtual double gpu_room(const GpuView& gpu) const = 0;
  virtual double job_need(const JobSpec& job) const = 0;
  // True when the bound is the whole answer: admits(gpu, job) == (job_need(job) <=
  // gpu_room(gpu)) for every view and job. Placement then counts and picks GPUs from their
  // rooms alone, without building a view and asking `admits` per GPU.
  virtual bool room_decides_admission() const { return false; }
  // The same promise for one job, for views that carry resident slots (as placement's do):
  // admits(gpu, job) == (job_need(job) <= gpu_room(gpu)). True wherever
  // room_decides_admission() is; a model may also say it of some jobs only (MIG: single-GPU
  // jobs that name no profile, under the default strategy and sizing). Placement then picks
  // GPUs from the cluster's room index for such a job.
  virtual bool room_decides_admission_for(const JobSpec& /*job*/) const {
    return room_decides_admission();
  }
  // Why admits(gpu, job) is false for a job whose admission the room decides
  // (room_decides_admission_for), from a GPU's room alone (precondition: room < job_need(job)),
  // so that a blocked queue is explained without a view of every GPU; nullopt (the default)
  // when the room does not say, and SharingModel::refusal is asked. A model that answers must
  // answer alike for every room below 0, and alike for every room in [0, job_need(job)): the
  // cluster's room index then counts the GPUs of each answer (sim/placement/blocked_reason.h).
  virtual std::optional<QueueReason> room_refusal(double /*room*/, const JobSpec& /*job*/) const {
    return std::nullopt;
  }

 protected:
  ~RoomBound() = default;
};

// One slot of a GPU's layout (a MIG instance), as reports see it.
struct SlotInfo {
  std::string_view name;   // e.g. the MIG profile "3g.40gb"; valid as long as the model
  int compute_slices = 0;  // the slot's share of the GPU, in the device's compute slices
  MemoryMiB memory;        // memory the slot's jobs may use
};

// GPUs that take one of several layouts (MIG partitions; GpuView::layout indexes them), each
// split into slots a job holds for as long as it stays. Without the facet a GPU has one layout
// (0) and no slots.
class SlotLayout {
 public:
  // Layouts a GPU of `device` can take, >= 1.
  virtual int layout_count(const DeviceProfile& device) const = 0;
  // The layout GPU number `index_in_node` of a node of `device` starts in, e.g. a
  // per-GPU-index MIG configuration. Must be in [0, layout_count(device)).
  virtual int initial_layout(const DeviceProfile& /*device*/, int /*index_in_node*/) const {
    return 0;
  }
  // Called when the engine places `job` on a GPU that `admits` accepted (`gpu` shows the GPU
  // before the job joins): the slot the job holds there for as long as it stays, e.g. the MIG
  // instance it runs in. Later views list it in GpuView::resident_slot. A running process cannot
  // move, so a model with slots decides admission and rates from the residents' slots. The
  // default: slot 0 (layouts without slots).
  virtual int choose_slot(const GpuView& /*gpu*/, const JobSpec& /*job*/) const { return 0; }
  // True when admits(gpu, job), for views that carry resident slots, depends on the GPU only
  // through its device, its layout and the slots its residents hold (not on who they are or
  // what memory they use), as with fixed MIG instances. Placement then asks `admits` once per
  // distinct (device, layout, held slots) within one placement, not once per GPU.
  virtual bool admission_by_slots() const { return false; }
  // Slots a GPU of `device` in `layout` is split into, for slot metrics (slice utilization,
  // fragmentation). 0: the GPU is not split in that layout (MIG off); slot_info and slot_fits
  // are then never asked.
  // The default reports none.
  virtual int slot_count(const DeviceProfile& /*device*/, int /*layout*/) const { return 0; }
  // Precondition for both: 0 <= slot < slot_count(device, layout).
  virtual SlotInfo slot_info(const DeviceProfile& /*device*/, int /*layout*/, int /*slot*/) const {
    return {};
  }
  // Whether `job` could run in `slot` were the slot empty (profile, memory, compute).
  virtual bool slot_fits(const DeviceProfile& /*device*/, int /*layout*/, int /*slot*/,
                         const JobSpec& /*job*/) const {
    return false;
  }

 protected:
  ~SlotLayout() = default;
};

// Changes of a GPU's layout while the run goes on. Needs SlotLayout (the layouts it moves
// between).
class LayoutChanges {
 public:
  // Whether plan_reconfiguration may ever propose anything: false lets the engine skip
  // gathering the queue's front after every scheduling pass.
  virtual bool reconfigures() const = 0;
  // Asked after a scheduling pass when the queue's head (`blocked`) fits nowhere: may propose to
  // change one GPU's layout so that it would. `behind` lists the jobs queued after the head, in
  // queue order, at most kReconfigurationLookahead of them (the demand a new layout should
  // serve). The engine then stops placing jobs on that GPU, waits until it is empty (drain, or
  // migration of its residents when Reconfiguration::migration is enabled), pays `delay`, and
  // switches it to the new layout. Hysteresis against thrashing is the model's: GpuState records
  // when each GPU was last reconfigured.
  virtual bool plan_reconfiguration(Time now, const Cluster& cluster, GpuViewBuilder& views,
                                    const JobSpec& blocked, std::span<const JobSpec* const> behind,
                                    Reconfiguration& out) const = 0;

  // Whether plan_resplit may ever propose anything: false lets the engine skip the question.
  virtual bool resplits() const { return false; }
  // May propose to move a GPU's residents into other slots of it, in its current or another
  // layout; every resident is a running single-GPU job (not a service, not writing a
  // checkpoint). `work_left_us`: per resident (GpuView order), its exclusive-runtime
  // microseconds still to do. Asked
  // - with `incoming` null, after the scheduling pass of an instant at which a job finished on
  //   the GPU, when nothing is queued: e.g. into the larger instances the finished job's leaving
  //   makes possible;
  // - with `incoming` the queue's head, when plan_reconfiguration chose the GPU for it with
  //   migration: instead of moving the residents off, a layout that holds them and the head
  //   (which then starts in a free slot that fits it, as any start).
  // The engine applies the request at once (sim/engine/engine_resplit.cc); the proposal must
  // hold every resident, each in a slot of its own that fits it, and move at least one.
  virtual bool plan_resplit(const GpuView& /*gpu*/, std::span<const double> /*work_left_us*/,
                            const JobSpec* /*incoming*/, Resplit& /*out*/) const {
    return false;
  }

 protected:
  ~LayoutChanges() = default;
};

// What a request-level service meets on a GPU it shares (sim/core/service_gpu_context.h),
// instead of progressing at the fluid rate.
class ServiceContexts {
 public:
  // The slice schedule resident `resident` (a service) meets on this GPU: true and `out` filled
  // when the model time-slices whole contexts and the GPU has other residents; false (the
  // default) when its requests progress at the fluid rate. `out.others` is reused (cleared, not
  // shrunk) so that the call does not allocate once warm.
  virtual bool slice_context(const GpuView& /*gpu*/, std::size_t /*resident*/,
                             SliceContext& /*out*/) const {
    return false;
  }
  // The same for a model whose clients' thread blocks share the SMs of one GPU (MPS with
  // block allocation): true and `out` filled when the GPU has other residents.
  virtual bool block_context(const GpuView& /*gpu*/, std::size_t /*resident*/,
                             BlockContext& /*out*/) const {
    return false;
  }

 protected:
  ~ServiceContexts() = default;
};

}  // namespace gpumux
