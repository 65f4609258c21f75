// `mig+mps` and `mig+timeslice`: GPUs in MIG mode whose instances are each shared by several jobs
// under an inner model, MPS or time-slicing ("MPS on MIG: one MPS control daemon per MIG
// device", docs/gpu-facts.md "MIG"). Instances stay isolated from each other as under `mig`; inside
// one instance the inner model decides admission, rates and who dies when memory runs out, as it
// would on a small GPU.
//
// Parameters (`sharing.params`): every parameter of `mig` (models/mig/mig_model.h: `layout`,
// `mig_parted` + `config`, `layouts` + `repartition`, `compute_aware`, ...), plus
// - `inner` (default {}): the inner model's own parameters, e.g. {"admission": "peak"} for MPS;
//   unknown keys there are errors at .../params/inner/KEY;
// - `instance_choice` (default "spread"): which admitting instance a new job takes: "spread"
//   (fewest residents, then the smallest instance, then the lowest index) or "pack" (most
//   residents, then the smallest, then the lowest index).
//
// Sub-devices. An instance of profile P on device D is, for the inner model, the DeviceProfile
// D with memory = P.memory, sms = P.sms, every MIG field cleared, name "D/P" (so that nothing
// keyed by device name mistakes an instance for its GPU) and every other field kept
// (architecture, mps_client_limit, memory_bandwidth_gbps, source). Built once per device and
// profile and cached for the model's life.
//
// Jobs as the inner model sees them. With s = P.sms / D.sms (the instance's share of the GPU's
// SMs), a job of sm_share c, sm_util u and kernel length L enters the inner model as
//   sm_share' = min(1, c / s)                  its share of the instance's SMs;
//   k = max(1, c / s)                          a job wider than the instance runs each kernel on
//   kernel_length' = L x k                     fewer SMs, so k times longer;
//   sm_util' = u k / (u k + 1 - u)             its duty cycle with those longer kernels (CPU gaps
//                                              unchanged);
// its memory, memory profile, memory limit, tenant, gang size and kind unchanged, and no MIG
// profile request. Rescaling is an assumption of this model (declared in parameters()).
//
// Rate of a resident j of instance I (1.0 = as fast as alone on the whole GPU):
//   rate_j = mig_instance_rate(j, D, P_I) x inner_rate_j,
// where mig_instance_rate is the rate alone in the instance under the `mig` model's `speed_model`
// (models/mig/instance_rate.h, fitted by default;
// relative to the whole GPU: the `mig` model's rate) and inner_rate_j is the inner model's rate
// of the rescaled j among the rescaled residents of I on the sub-device (relative to alone in
// the instance). A job alone in its instance thus runs exactly as under `mig`. Jobs in other
// instances never change it.
// Measured co-location speeds of the workload catalogue (models/colocation_speed.h) apply on a
// GPU with MIG off only, as under the inner model: a pair inside an instance shares a slice, not
// the whole GPU its speeds were measured on, and no law composing the instance's speed with a
// whole-GPU pair speed is assumed.
// GpuLoad: useful_busy = sum over occupied instances of inner useful_busy x s_I, overhead = sum
// of inner overhead x s_I (each capped so that they stay fractions of the whole GPU).
//
// Slots. A resident's slot (GpuView::resident_slot) is its instance index in the layout (as in
// MigModel::slot_info). When a view carries no slots (built by hand), the model replays
// choose_slot over the residents in placement order; a resident that no instance admits then is
// costed in the instance that fits it with the fewest residents, else the smallest instance.
//
// Admission on a GPU in MIG mode: no gang jobs (no NCCL/P2P across instances); yes iff some
// instance I fits the job under MigModel::fits (requested profile, memory, compute-aware SMs,
// strategy) and the inner model admits the rescaled job on I's sub-device given I's residents
// (their memory in use and its sum within I). choose_slot picks among those by
// `instance_choice`. On a GPU with MIG off (no MIG support, or the layout leaves it whole):
// MigModel::fits_whole_gpu and the inner model on the whole device (gangs as the inner model
// allows), rates and faults from the inner model unchanged.
//
// Memory faults stay inside an instance: each occupied instance asks the inner model's
// memory_fault on its sub-view, which carries the residents' GpuView::resident_asked flags (the
// inner default `allocator` kills the instance's askers that do not fit; MPS `oom: all` kills
// that instance's clients only). Fatal faults too: the inner model's fatal_fault on the faulting
// job's instance (mig+mps: every client of that instance's MPS server dies; mig+timeslice: the
// faulting job alone). The engine keeps one recovery delay per GPU and requires that a
// recovering GPU holds nobody, so `recovery` is the largest inner recovery only when every
// resident of the GPU dies, else 0: the delay of one instance's MPS server before it takes new
// clients is not modelled.
//
// Not thread-safe (caches and scratch are mutable, as in MigModel). compute_rates does not
// allocate once the GPU's layout has been seen (check_device warms every layout) and the scratch
// has grown to the largest resident count and tenant length seen.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/mig/instance_rate.h"
#include "models/mig/mig_model.h"
#include "sim/base/json_fields.h"
#include "sim/base/parameter_spec.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

enum class InstanceChoice : std::uint8_t { kSpread, kPack };

// The sub-device an instance of `profile` on `device` is for an inner model (see above).
DeviceProfile mig_sub_device(const DeviceProfile& device, const MigProfile& profile);

// Writes into `out` the fields of `job` an inner model reads, rescaled to an instance holding
// `sm_fraction` (s, in (0, 1]) of the GPU's SMs (see above). Leaves `out.id` and `out.submit`
// alone; clears `out.mig_profile`. Does not allocate once `out.tenant` has the capacity.
void rescale_to_instance(const JobSpec& job, double sm_fraction, JobSpec& out);

class MigHybridModel : public SharingModel,
                       public RoomBound,
                       public SlotLayout,
                       public LayoutChanges {
 public:
  // Builds the inner model from its parameter object, which it must finish (unknown keys are
  // errors). A plain function so that this library needs none of the inner models' libraries.
  using InnerFactory = std::unique_ptr<SharingModel> (*)(JsonObject& params);

  // `name` is what scenarios call the hybrid ("mig+mps"). Reads `inner` and `instance_choice`,
  // builds the inner model with `make_inner`, then a MigModel from the remaining keys (which
  // finishes `params`). Throws InputError naming the JSON pointer of a bad or unknown key.
  MigHybridModel(std::string name, JsonObject& params, InnerFactory make_inner);

  std::string_view name() const override { return name_; }
  bool admits(const GpuView& gpu, const JobSpec& job) const override;
  // MIG on: kMigFit. A whole GPU: as MigModel for what the whole GPU refuses, else the inner
  // model's reason.
  QueueReason refusal(const GpuView& gpu, const JobSpec& job) const override;
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override;
  // On GPUs with MIG off, as the inner model (measured pair speeds included); inside instances
  // never (docs/workload-catalogue.md).
  bool uses_colocation_speeds() const override { return inner_->uses_colocation_speeds(); }
  bool memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                    Time& recovery) const override;
  void fatal_fault(const GpuView& gpu, std::size_t faulting, std::span<std::uint8_t> killed,
                   Time& recovery) const override;
  // The instance the job takes (see `instance_choice`); 0 on a whole GPU. Precondition: admits().
  // Without one, the instance that fits it with the fewest residents, else the smallest.
  int choose_slot(const GpuView& gpu, const JobSpec& job) const override;
  int initial_layout(const DeviceProfile& device, int index_in_node) const override {
    return mig_.initial_layout(device, index_in_node);
  }
  // MigModel's checks, then builds the sub-devices of every layout of `device`.
  void check_device(const DeviceProfile& device) const override;
  void check_cluster(std::span<const DeviceProfile> devices,
                     std::span<const int> gpus_per_node) const override {
    mig_.check_cluster(devices, gpus_per_node);
  }
  int layout_count(const DeviceProfile& device) const override { return mig_.layout_count(device); }
  bool reconfigures() const override { return mig_.reconfigures(); }
  bool plan_reconfiguration(Time now, const Cluster& cluster, GpuViewBuilder& views,
                            const JobSpec& blocked, std::span<const JobSpec* const> behind,
                            Reconfiguration& out) const override {
    return mig_.plan_reconfiguration(now, cluster, views, blocked, behind, out);
  }
  int slot_count(const DeviceProfile& device, int layout) const override {
    return mig_.slot_count(device, layout);
  }
  SlotInfo slot_info(const DeviceProfile& device, int layout, int slot) const override {
    return mig_.slot_info(device, layout, slot);
  }
  bool slot_fits(const DeviceProfile& device, int layout, int slot,
                 const JobSpec& job) const override {
    return mig_.slot_fits(device, layout, slot, job);
  }
  // MigModel's parameters except its one-job-per-instance rule, the inner model's prefixed
  // "inner.", `instance_choice` and the rescaling assumption.
  std::vector<ModelParameter> parameters() const override { return declared_; }
  // A room bound where the inner model has one (see gpu_room below).
  const RoomBound* room_bound() const override { return inner_->room_bound() ? this : nullptr; }
  const SlotLayout* slot_layout() const override { return this; }
  // Repartitioning as MigModel (re-splitting in place is refused: an instance holds several).
  const LayoutChanges* layout_changes() const override {
    return mig_.reconfigures() ? this : nullptr;
  }
  // Placement pruning, when the inner model bounds rooms: a MIG GPU's room is the largest inner
  // room of its instances (each as the inner model sees it); a whole GPU's is the inner room of
  // the device. The need is the inner model's need of the job (inner needs depend on memory and
  // admission mode only, which rescaling to an instance leaves unchanged).
  double gpu_room(const GpuView& gpu) const override;
  double job_need(const JobSpec& job) const override { return inner_->room_bound()->job_need(job); }

  const MigModel& mig() const { return mig_; }
  const SharingModel& inner() const { return *inner_; }
  InstanceChoice instance_choice() const { return choice_; }
  // The cached sub-device of instance `instance` of layout `layout` of `device`. Precondition:
  // 0 <= instance < slot_count(device, layout). The reference lives as long as the model.
  const DeviceProfile& sub_device(const DeviceProfile& device, int layout, int instance) const;

 private:
  struct Instance {
    MigProfile profile;  // a copy, independent of the DeviceProfile object it came from
    const DeviceProfile* sub = nullptr;  // into sub_devices_
    MigSupply supply;
    int size_rank = 0;  // 0 = smallest (memory, compute slices, memory slices, index)
  };
  struct LayoutInfo {
    std::string device;
    int layout = 0;
    bool mig_enabled = false;
    std::vector<Instance> instances;
  };

  const LayoutInfo& layout_info(const DeviceProfile& device, int layout) const;
  // The instance of each resident: gpu.resident_slot when it gives one in range for every
  // resident, else choose_slot replayed over the residents into slot_.
  std::span<const int> slots_of(const GpuView& gpu, const LayoutInfo& info) const;
  // The instance `job` takes given the first `residents` residents of `gpu` in `slots`, or -1
  // when no instance fits and admits it.
  int pick(const GpuView& gpu, const LayoutInfo& info, std::size_t residents,
           std::span<const int> slots, const JobSpec& job) const;
  // For a job no instance admits: the fitting instance with the fewest residents, else the
  // smallest instance.
  int fallback(const GpuView& gpu, const LayoutInfo& info, std::size_t residents,
               std::span<const int> slots, const JobSpec& job) const;
  // Fills sub_jobs_ / sub_memory_ / member_ with the rescaled residents (of the first
  // `residents`) in `instance`; returns the sub-view's memory in use.
  MemoryMiB gather(const GpuView& gpu, const Instance& inst, int instance, std::size_t residents,
                   std::span<const int> slots) const;

  std::string name_;
  ChoiceSetting choice_setting_;  // read before the MIG params, which finish the object
  InstanceChoice choice_ = InstanceChoice::kSpread;
  std::unique_ptr<SharingModel> inner_;
  MigModel mig_;
  std::vector<ModelParameter> declared_;

  mutable std::deque<LayoutInfo> layouts_;         // a deque: references stay valid as it grows
  mutable std::deque<DeviceProfile> sub_devices_;  // one per (device, profile) pair
  // Scratch, reserved up front so that compute_rates does not allocate. scaled_ never shrinks,
  // so that its tenants keep their capacity.
  mutable std::vector<JobSpec> scaled_;
  mutable JobSpec candidate_;
  mutable std::vector<const JobSpec*> sub_jobs_;
  mutable std::vector<MemoryMiB> sub_memory_;
  mutable std::vector<double> sub_rates_;
  mutable std::vector<std::uint8_t> sub_killed_;
  mutable std::vector<std::uint8_t> sub_asked_;
  mutable std::vector<int> member_;
  mutable std::vector<int> slot_;
  mutable std::vector<int> count_;
};

}  // namespace gpumux
