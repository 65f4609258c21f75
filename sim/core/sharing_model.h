// The contract between the engine and a GPU-sharing model.
//
// A model answers two questions about one GPU: may this job join the jobs already on it
// (admission), and given the jobs on it, how fast does each progress (its rate, 1.0 = as fast
// as alone on an exclusive GPU)? The engine owns time: models never see the clock; the engine
// advances every job's progress by rate x elapsed time before it changes a GPU's residents and
// asks for fresh rates afterwards.
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
#include "sim/core/job.h"
#include "sim/core/queue_reason.h"
#include "sim/core/service_gpu_context.h"

namespace gpumux {

class Cluster;
class GpuViewBuilder;

// The jobs on one GPU, as a model sees them. Valid only during the call it is passed to.
struct GpuView {
  const DeviceProfile& device;
  std::span<const JobSpec* const> residents;  // in the order they were placed
  MemoryMiB memory_used;                      // sum of the residents' memory in use now
  // Memory each resident uses now (same order; its peak unless it has a memory profile).
  // Empty for a view of an empty GPU.
  std::span<const MemoryMiB> resident_memory = {};
  int layout = 0;  // the GPU's configuration (e.g. MIG partition), see layout_count()
  // The slot each resident holds (same order; see SharingModel::choose_slot). Empty when the
  // caller does not track slots (a view built by hand): models then assign slots themselves.
  std::span<const int> resident_slot = {};
  // Which residents asked for memory since the GPU was last checked (same order; nonzero:
  // asked): those that were just placed (a new process allocates) and those whose memory in
  // use just grew (a memory profile step). Out of memory fails the allocation of an asker, never
  // of a resident whose use did not change. Empty when the caller does not know (a view built
  // by hand): every resident then counts as an asker, in placement order.
  std::span<const std::uint8_t> resident_asked = {};
};

// The room of a GPU no model bounds (SharingModel::gpu_room): every job may fit.
inline constexpr double kUnboundedRoom = 1e300;

// Queued jobs behind the head that SharingModel::plan_reconfiguration is shown.
inline constexpr std::size_t kReconfigurationLookahead = 64;

// How a reconfiguration empties its GPU when the model moves residents off it instead of
// waiting for them to finish (checkpoint-restart migration, sim/engine/engine_migration.cc). Each
// running resident that is not a service and would take longer to finish than to be moved
// (time left at its current rate > checkpoint_time + restart_time, or lost work + restart_time
// without a checkpoint) leaves the GPU and returns to the queue with its progress:
// - checkpoint = true: it stops progressing, spends `checkpoint_time` writing a checkpoint (its
//   instance stays held), then leaves with all its work kept;
// - checkpoint = false: it leaves at once and keeps only the work up to its last checkpoint
//   (JobSpec::checkpoint_interval, or an earlier migration's checkpoint); the rest is lost.
// Wherever it starts again, it spends `restart_time` restoring before it progresses.
struct MigrationPlan {
  bool enabled = false;  // false: drain (wait for every resident to finish)
  bool checkpoint = true;
  Time checkpoint_time;  // wall time per resident to write its checkpoint
  Time restart_time;     // wall time per restart to restore it
};

// A model's request to change one GPU's layout (see SharingModel::plan_reconfiguration).
struct Reconfiguration {
  std::uint32_t gpu = 0;
  int layout = 0;
  Time delay;  // time the change takes once the GPU is empty (e.g. longer when a reset is needed)
  MigrationPlan migration;  // residents moved off instead of drained (default: drained)
};

// A model's request to re-split a GPU in place (SharingModel::plan_resplit): its residents stay
// on it, each in the slot given here; a moved resident is checkpointed and restarted there and
// makes no progress for `pause`. The scratch vectors keep their storage between requests.
struct Resplit {
  int layout = 0;                   // the GPU's layout afterwards (may be its current one)
  std::vector<int> slots;           // per resident, in GpuView order: its slot afterwards
  std::vector<std::uint8_t> moved;  // per resident: nonzero when it is checkpointed and restarted
  Time pause;                       // wall time a moved resident makes no progress
  Time checkpoint;                  // of which writing its checkpoint (reported as migrations')
  // Wall time the GPU takes no new job while its instances are made (a changed layout); the
  // engine counts it as a reconfiguration in flight.
  Time unavailable;
};

// What a GPU does with its time under the current residents, as fractions of wall time.
struct GpuLoad {
  double useful_busy = 0.0;  // SMs busy with residents' kernels, [0, 1]
  double overhead = 0.0;     // lost to sharing (e.g. context switches), [0, 1 - useful_busy]
  // Where the rates came from, for the echo of the workload catalogue (bit i: resident i;
  // models/colocation_speed.h): rates that are measured co-location speeds instead of the
  // model's, and residents beside a partner the catalogue measured as unable to run with them
  // (they keep the model's rate). Zero under models that never use measured pair speeds.
  std::uint8_t measured_pair = 0;
  std::uint8_t unrunnable_pair = 0;
};

// One slot of a GPU's layout (a MIG instance), as reports see it.
struct SlotInfo {
  std::string_view name;   // e.g. the MIG profile "3g.40gb"; valid as long as the model
  int compute_slices = 0;  // the slot's share of the GPU, in the device's compute slices
  MemoryMiB memory;        // memory the slot's jobs may use
};

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
  // The same for a job whose admission the room decides (room_decides_admission_for), from a
  // GPU's room alone (precondition: room < job_need(job)), so that a blocked queue is explained
  // without a view of every GPU; nullopt (the default) when the room does not say, and
  // refusal() is asked. A model that answers must answer alike for every room below 0, and
  // alike for every room in [0, job_need(job)): the cluster's room index then counts the GPUs
  // of each answer (sim/placement/blocked_reason.h).
  virtual std::optional<QueueReason> room_refusal(double /*room*/, const JobSpec& /*job*/) const {
    return std::nullopt;
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

  // Describes the slice schedule resident `resident` (a service) meets on this GPU, for
  // request-level services: true and `out` filled when the model time-slices whole contexts and
  // the GPU has other residents; false (the default) when requests progress at the fluid rate.
  // `out.others` is reused (cleared, not shrunk) so that the call does not allocate once warm.
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

  // Called when the engine places `job` on a GPU that `admits` accepted (`gpu` shows the GPU
  // before the job joins): the slot the job holds there for as long as it stays, e.g. the MIG
  // instance it runs in. Later views list it in GpuView::resident_slot. A running process cannot
  // move, so a model with slots decides admission and rates from the residents' slots. Models
  // without slots keep the default.
  virtual int choose_slot(const GpuView& /*gpu*/, const JobSpec& /*job*/) const { return 0; }

  // The layout (see layout_count) GPU number `index_in_node` of a node of `device` starts in,
  // e.g. a per-GPU-index MIG configuration. Must be in [0, layout_count(device)).
  virtual int initial_layout(const DeviceProfile& /*device*/, int /*index_in_node*/) const {
    return 0;
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

  // Layouts a GPU of `device` can take (MIG partitions); GpuView::layout indexes them. Models
  // without per-GPU configurations have one.
  virtual int layout_count(const DeviceProfile& /*device*/) const { return 1; }

  // Asked after a scheduling pass when the queue's head (`blocked`) fits nowhere: may propose to
  // change one GPU's layout so that it would. `behind` lists the jobs queued after the head, in
  // queue order, at most kReconfigurationLookahead of them (the demand a new layout should
  // serve). The engine then stops placing jobs on that GPU, waits until it is empty (drain, or
  // migration of its residents when Reconfiguration::migration is enabled), pays `delay`, and
  // switches it to the new layout. Hysteresis against thrashing is the
  // model's: GpuState records when each GPU was last reconfigured.
  // Whether plan_reconfiguration may ever propose anything: false lets the engine skip
  // gathering the queue's front after every scheduling pass (most models never repartition).
  virtual bool reconfigures() const { return false; }
  virtual bool plan_reconfiguration(Time /*now*/, const Cluster& /*cluster*/,
                                    GpuViewBuilder& /*views*/, const JobSpec& /*blocked*/,
                                    std::span<const JobSpec* const> /*behind*/,
                                    Reconfiguration& /*out*/) const {
    return false;
  }

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
  // Whether plan_resplit may ever propose anything: false lets the engine skip the question.
  virtual bool resplits() const { return false; }
  virtual bool plan_resplit(const GpuView& /*gpu*/, std::span<const double> /*work_left_us*/,
                            const JobSpec* /*incoming*/, Resplit& /*out*/) const {
    return false;
  }

  // Optional: admission by kind of job, for queues that look at one job per kind
  // (sim/placement/request_kind.h). If admission_by_key() is true, for every view: two jobs of
  // equal gpus, gpu_milli and admission_key are admitted alike (admits, refusal, room_refusal,
  // job_need, room_decides_admission_for), and admits depends on a GPU only through its device
  // and residents (specs, memory in use), which the cluster's change log follows
  // (sim/state/node_change_log.h). False (the default): each job is asked alone.
  virtual bool admission_by_key() const { return false; }
  virtual std::int64_t admission_key(const JobSpec& /*job*/) const { return 0; }

  // Optional placement pruning. A model whose has_room_bound() is true promises, for every view
  // and job: admits(gpu, job) implies job_need(job) <= gpu_room(gpu). The engine keeps each GPU's
  // room up to date (GpuState::room) and placement skips GPUs and whole nodes whose room is below
  // a job's need without asking `admits`, so the answer is the same, found faster. Units are the
  // model's (e.g. MiB of the largest free MIG instance). Views passed carry resident slots.
  virtual bool has_room_bound() const { return false; }
  virtual double gpu_room(const GpuView& /*gpu*/) const { return kUnboundedRoom; }
  virtual double job_need(const JobSpec& /*job*/) const { return 0.0; }
  // True when the bound is the whole answer: admits(gpu, job) == (job_need(job) <=
  // gpu_room(gpu)) for every view and job. Placement then counts and picks GPUs from their
  // rooms alone, without building a view and asking `admits` per GPU. Implies has_room_bound().
  virtual bool room_decides_admission() const { return false; }
  // The same promise for one job, for views that carry resident slots (as placement's do):
  // admits(gpu, job) == (job_need(job) <= gpu_room(gpu)). True wherever
  // room_decides_admission() is; a model may also say it of some jobs only (MIG: single-GPU
  // jobs that name no profile, under the default strategy and sizing). Placement then picks
  // GPUs from the cluster's room index for such a job. Implies has_room_bound().
  virtual bool room_decides_admission_for(const JobSpec& /*job*/) const {
    return room_decides_admission();
  }
  // True when admits(gpu, job), for views that carry resident slots, depends on the GPU only
  // through its device, its layout and the slots its residents hold (not on who they are or
  // what memory they use), as with fixed MIG instances. Placement then asks `admits` once per
  // distinct (device, layout, held slots) within one placement, not once per GPU.
  virtual bool admission_by_slots() const { return false; }

  // Slots a GPU of `device` in `layout` is split into (MIG instances), for slot metrics
  // (slice utilization, fragmentation). 0: the GPU is not split (MIG off, or a model without
  // slots); slot_info and slot_fits are then never asked.
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

  virtual std::vector<ModelParameter> parameters() const = 0;
};

}  // namespace gpumux
