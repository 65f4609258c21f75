// `timeslice`: several jobs share a GPU by time-slicing, the default when processes share a
// GPU. One context runs at a time; a context keeps the GPU until its slice ends or it has no
// kernel ready, and every switch costs time during which nobody computes. With short kernels
// and CPU gaps the GPU "ping-pongs" between contexts and loses capacity to switches. Rates come
// from the fast model in models/timeslice/timeslice_rates.h (validated against the kernel-level
// reference, see docs/sharing-models.md "Time-slicing"), except where the workload catalogue
// measured the pair on a GPU of two jobs (models/colocation_speed.h).
//
// Parameters left at their defaults take the values measured on a device on GPUs of that
// profile (the H200's switch cost, launch gap and slice: models/device_measurements.h). Kernel and
// gap lengths are fixed when every resident has JobSpec::fixed_kernel_lengths, else exponential.
//
// Admission (`params.admission`):
// - `memory` (default): the residents' summed peak memory must fit the GPU, and at most
//   `max_jobs_per_gpu` jobs share it;
// - `replicas`: the Kubernetes device-plugin flavour: up to `replicas` jobs per GPU, no memory
//   check. No memory isolation: when the co-located memory exceeds the GPU, out of memory
//   happens and `params.oom` decides who dies (models/oom_policy.h; default `allocator`: the
//   processes whose own allocation failed).
#pragma once

#include <string>
#include <vector>

#include "models/oom_policy.h"
#include "models/rate_memo.h"
#include "models/timeslice/timeslice_params.h"
#include "models/timeslice/timeslice_physics.h"
#include "models/timeslice/timeslice_rates.h"
#include "sim/base/json_fields.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

class TimeSliceModel : public SharingModel, public RoomBound, public ServiceContexts {
 public:
  // Reads `params` (docs/sharing-models.md "Sharing models"); throws InputError naming the key.
  explicit TimeSliceModel(JsonObject& params);

  std::string_view name() const override { return "timeslice"; }
  bool admits(const GpuView& gpu, const JobSpec& job) const override;
  // Past max_jobs_per_gpu: kAdmission; else memory.
  QueueReason refusal(const GpuView& gpu, const JobSpec& job) const override;
  std::optional<QueueReason> room_refusal(double room, const JobSpec& job) const override;
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override;
  bool uses_colocation_speeds() const override { return true; }
  bool memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                    Time& recovery) const override;
  std::vector<ModelParameter> parameters() const override { return declared_; }
  const RoomBound* room_bound() const override { return this; }
  const ServiceContexts* service_contexts() const override { return this; }
  // A service's requests wait for the other contexts' slices (docs/services.md "Requests under
  // time-slicing"): the device's slice, switch, interference and launch gap, and the others.
  bool slice_context(const GpuView& gpu, std::size_t resident, SliceContext& out) const override;
  bool admits_fractional_jobs() const override { return true; }
  // Admission reads a job's peak memory alone (nothing of it with replicas).
  bool admission_by_key() const override { return true; }
  std::int64_t admission_key(const JobSpec& job) const override {
    return replicas_mode_ ? 0 : job.memory.mib();
  }
  // Placement pruning: room = free memory in MiB (replicas: 0) while below max_jobs_per_gpu,
  // else -1; need = the job's peak memory (replicas: 0).
  double gpu_room(const GpuView& gpu) const override;
  double job_need(const JobSpec& job) const override;
  // Admission is exactly "room >= need" under both admissions (memory: free summed-peak memory
  // below max_jobs_per_gpu; replicas: 0 below the replica count).
  bool room_decides_admission() const override { return true; }

 private:
  // The rates and load of the fast model (through the memo), before measured pair speeds.
  void model_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const;
  // The scenario's physics parameters, and per measured device those with its measurements.
  TimeSlicePhysics physics_;
  bool replicas_mode_ = false;
  std::size_t max_jobs_ = 8;
  OomPolicy oom_ = OomPolicy::kAllocator;
  Time recovery_;
  std::vector<ModelParameter> declared_;
  // Scratch for compute_rates, sized up front so that it does not allocate.
  mutable std::vector<TimeSliceJob> jobs_;
  mutable TimeSliceWorkspace workspace_;
  // Rates already computed, by the residents' rate inputs (models/rate_memo.h).
  mutable RateMemo memo_;
};

}  // namespace gpumux
