// The contract between the engine and a GPU-sharing model.
//
// A model answers two questions about one GPU: may this job join the jobs already on it
// (admission), and given the jobs on it, how fast does each progress (its rate, 1.0 = as fast
// as alone on an exclusive GPU)? The engine owns time: models never see the clock; the engine
// advances every job's progress by rate x elapsed time before it changes a GPU's residents and
// asks for fresh rates afterwards.
//
// What only some models do (bound a GPU's room for placement, split GPUs into slots, change
// layouts, give request-level services a schedule) is a facet of its own
// (sim/core/sharing_facets.h) that a model provides or not.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/base/parameter.h"
#include "sim/base/units.h"
#include "sim/core/device.h"
#include "sim/core/gpu_view.h"
#include "sim/core/job.h"
#include "sim/core/layout_change.h"
#include "sim/core/queue_reason.h"
#include "sim/core/service_gpu_context.h"
#include "sim/core/sharing_facets.h"

namespace gpumux {

class SharingModel {
 public:
  virtual ~SharingModel() = default;

  // The name scenario files use for this model.
  virtual std::string_view name() const = 0;

  // True when `job` may be placed on a GPU that currently holds `gpu.residents`.
  virtual bool admits(const GpuView& gpu, const JobSpec& job) const = 0;

  // Why admits(gpu, job) is false (precondition): the first of the model's checks that refuses,
  // in QueueReason's order (sim/core/queue_reason.h): kGpus (the GPU or its compute share is
  // taken), kAdmission (co-location rules), kMemory, kMigFit. Asked only to explain a blocked
  // queue, never to place. The default: kGpus for a GPU with residents under a model that needs
  // empty GPUs, else kAdmission.
  virtual QueueReason refusal(const GpuView& gpu, const JobSpec& /*job*/) const {
    return requires_empty_gpu() && !gpu.residents.empty() ? QueueReason::kGpus
                                                          : QueueReason::kAdmission;
  }
  // True when several jobs may share one GPU, each with a fraction of it (timeslice, mps,
  // fractional): the share-aware placement policies (sim/placement/share_placement.h) need such a model.
  virtual bool admits_fractional_jobs() const { return false; }
  // True when admission bounds each GPU's compute shares (JobSpec::gpu_milli) to 1000 milli
  // (fractional): runs then report GPU-share allocation and fragmentation.
  virtual bool limits_compute_shares() const { return false; }

  // True when admission is exactly "the GPU is empty": lets placement use its free-GPU index
  // instead of asking `admits` GPU by GPU.
  virtual bool requires_empty_gpu() const { return false; }

  // Writes the rate of each resident (same order as gpu.residents) into `rates`, each in (0, 1],
  // and the GPU's load into `load`. Precondition: rates.size() == gpu.residents.size() >= 1.
  // Must not allocate: it runs on every placement and completion.
  virtual void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const = 0;
  // True when compute_rates may replace its rates by measured co-location speeds of the
  // workload catalogue (models/colocation_speed.h) and says so in GpuLoad::measured_pair and
  // unrunnable_pair: the run then counts the jobs that ran at them (docs/workload-catalogue.md).
  virtual bool uses_colocation_speeds() const { return false; }

  // Called whenever a GPU's residents or their memory in use changed. When memory runs out
  // (the residents need more than the device has, possible only under admission that does not
  // check memory, or a job passes its own limit), marks in `killed` (same order as
  // gpu.residents) the jobs whose processes die, and sets `recovery` to how long the GPU then
  // refuses new jobs once they have left (zero: at once). GpuView::resident_asked says whose
  // allocation is the one that fails (measured: out of memory fails for the asking process
  // only, docs/gpu-facts.md "MPS"). Returns false when nobody dies. The default keeps everyone: a model
  // that admits only what fits has nothing to do.
  virtual bool memory_fault(const GpuView& /*gpu*/, std::span<std::uint8_t> /*killed*/,
                            Time& /*recovery*/) const {
    return false;
  }

  // Called when the process of resident `faulting` (an index into gpu.residents) hits a fatal
  // GPU fault (an illegal address, a kernel that traps...). Marks in `killed` (same order as
  // gpu.residents, all zero on entry) the residents whose processes die, which must include
  // `faulting`, and sets `recovery` to how long the GPU then refuses new jobs once they have
  // left (zero: at once; nonzero only when every resident dies). The default is the measured
  // behaviour without a shared context: the faulting process dies alone (docs/gpu-facts.md "Measured
  // here"). Models whose processes share one context (MPS) widen the blast radius.
  virtual void fatal_fault(const GpuView& /*gpu*/, std::size_t faulting,
                           std::span<std::uint8_t> killed, Time& recovery) const {
    killed[faulting] = 1;
    recovery = Time::zero();
  }

  // Checks that the model can run on `device` as configured (e.g. a MIG layout valid for its
  // profile table); throws InputError naming the parameter. Called for every device of a
  // cluster before a run, so that configuration errors never surface mid-run.
  virtual void check_device(const DeviceProfile& /*device*/) const {}
  // Checks the model against the cluster as a whole: `devices` are its device types and
  // `gpus_per_node[i]` the most GPUs a node of devices[i] has. Throws InputError naming the
  // parameter (e.g. a MIG configuration on a cluster without MIG GPUs).
  virtual void check_cluster(std::span<const DeviceProfile> /*devices*/,
                             std::span<const int> /*gpus_per_node*/) const {}

  // Optional: admission by kind of job, for queues that look at one job per kind
  // (sim/placement/request_kind.h). If admission_by_key() is true, for every view: two jobs of
  // equal gpus, gpu_milli and admission_key are admitted alike (admits, refusal, room_refusal,
  // job_need, room_decides_admission_for), and admits depends on a GPU only through its device
  // and residents (specs, memory in use), which the cluster's change log follows
  // (sim/state/node_change_log.h). False (the default): each job is asked alone.
  virtual bool admission_by_key() const { return false; }
  virtual std::int64_t admission_key(const JobSpec& /*job*/) const { return 0; }

  virtual std::vector<ModelParameter> parameters() const = 0;

  // The model's optional facets (sim/core/sharing_facets.h), null where it has none. A model
  // returns the same answer for as long as it lives, so callers may keep the pointer.
  virtual const RoomBound* room_bound() const { return nullptr; }
  virtual const SlotLayout* slot_layout() const { return nullptr; }
  virtual const LayoutChanges* layout_changes() const { return nullptr; }
  virtual const ServiceContexts* service_contexts() const { return nullptr; }
};

// What a model without a SlotLayout answers: one layout, which it starts in, and no slots.
inline int layout_count(const SharingModel& model, const DeviceProfile& device) {
  const SlotLayout* slots = model.slot_layout();
  return slots ? slots->layout_count(device) : 1;
}
inline int initial_layout(const SharingModel& model, const DeviceProfile& device,
                          int index_in_node) {
  const SlotLayout* slots = model.slot_layout();
  return slots ? slots->initial_layout(device, index_in_node) : 0;
}
inline int choose_slot(const SharingModel& model, const GpuView& gpu, const JobSpec& job) {
  const SlotLayout* slots = model.slot_layout();
  return slots ? slots->choose_slot(gpu, job) : 0;
}
inline int slot_count(const SharingModel& model, const DeviceProfile& device, int layout) {
  const SlotLayout* slots = model.slot_layout();
  return slots ? slots->slot_count(device, layout) : 0;
}
// A job's need under the model's RoomBound, or -kUnboundedRoom (fits any room) without one.
inline double job_need(const SharingModel& model, const JobSpec& job) {
  const RoomBound* room = model.room_bound();
  return room ? room->job_need(job) : -kUnboundedRoom;
}

}  // namespace gpumux
