// `fractional`: Kubernetes-style fractional GPUs (Alibaba GPU sharing, HAMi, Run:ai fractions).
// Each job asks for a compute share of each of its GPUs (JobSpec::gpu_milli, milli-GPU) and a
// memory quota (JobSpec::memory_limit, its peak memory when 0); a limiter enforces both on top
// of time-slicing.
//
// Admission: on one GPU the residents' compute shares sum to at most 1000 milli and their
// memory quotas to at most the device's memory, and at most `max_jobs_per_gpu` jobs share it.
//
// Rates: the limiter (limiter.h) grants each resident a GPU-time share a_j (strict: min(u_j,
// f_j); work-conserving: also the time others leave unused). A throttled job is, for the
// time-slicing underneath, a job of duty cycle a_j with its own kernels: its rate is the
// time-slicing rate of the residents at duty cycles a (models/timeslice/timeslice_rates.h, with
// the switch cost, slice, launch gap and interference of the timeslice model's parameters and
// defaults, H200 measurements included) times a_j / u_j, the slowdown the limiter alone imposes.
// Alone and strict, a job of duty cycle u with share f runs at min(1, f / u).
//
// Memory: quotas are isolated, so out of memory happens only to a job whose memory in use
// exceeds its own quota (a memory profile growing past it, or a quota below its peak); it dies
// alone, and the GPU takes new jobs at once.
#pragma once

#include <vector>

#include "models/timeslice/timeslice_rates.h"
#include "models/timeslice/timeslice_physics.h"
#include "sim/base/json_fields.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

class FractionalModel : public SharingModel, public RoomBound {
 public:
  // Reads `params` (docs/sharing-models.md "Sharing models"); throws InputError naming the key.
  explicit FractionalModel(JsonObject& params);

  std::string_view name() const override { return "fractional"; }
  bool admits(const GpuView& gpu, const JobSpec& job) const override;
  // Compute share (gpu_milli) taken: kGpus; else max_jobs_per_gpu: kAdmission; else memory.
  QueueReason refusal(const GpuView& gpu, const JobSpec& job) const override;
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override;
  bool memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                    Time& recovery) const override;
  bool admits_fractional_jobs() const override { return true; }
  bool limits_compute_shares() const override { return true; }
  std::vector<ModelParameter> parameters() const override { return declared_; }
  const RoomBound* room_bound() const override { return this; }
  // Admission reads a job's gpu_milli and its quota alone.
  bool admission_by_key() const override { return true; }
  std::int64_t admission_key(const JobSpec& job) const override { return quota(job).mib(); }
  // Placement pruning: room = compute milli left while below max_jobs_per_gpu, else -1;
  // need = the job's gpu_milli.
  double gpu_room(const GpuView& gpu) const override;
  double job_need(const JobSpec& job) const override;

  // The memory a job's quota reserves: its memory_limit, or its peak memory when it has none.
  static MemoryMiB quota(const JobSpec& job) {
    return job.memory_limit.mib() > 0 ? job.memory_limit : job.memory;
  }

 private:
  TimeSlicePhysics physics_;
  bool work_conserving_ = false;
  std::size_t max_jobs_ = 64;
  std::vector<ModelParameter> declared_;
  // Scratch for compute_rates, sized up front so that it does not allocate.
  mutable std::vector<double> duty_, share_, granted_, inner_rates_;
  mutable std::vector<TimeSliceJob> jobs_;
  mutable TimeSliceWorkspace workspace_;
};

}  // namespace gpumux
