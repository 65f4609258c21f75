#include "models/timeslice/timeslice_model.h"

#include <algorithm>

#include "models/colocation_speed.h"
#include "sim/core/service.h"

namespace gpumux {

namespace {

constexpr std::size_t kScratchJobs = 64;
// The rate memo: entries (about 1.2 MB) and the residents a key holds. A key's
// header is which measured device's parameters apply (0: none); per resident: sm_util's bits, the
// kernel length (us), whether its lengths are fixed.
constexpr std::size_t kMemoEntries = 4096;
constexpr std::size_t kMemoResidents = 8;

// The model's own parameters, declared once (sim/base/parameter_spec.h); the physics ones are in
// timeslice_physics.h.
constexpr std::string_view kAdmissionNames[] = {"memory", "replicas"};
constexpr ChoiceSpec kAdmissionSpec{"admission", kAdmissionNames, 0, "default",
                                    "who may share a GPU: summed peak memory must fit, or a "
                                    "fixed number of replicas without a memory check"};
constexpr NumberSpec kReplicasSpec{
    "replicas", "jobs", 4.0, 1.0, 1024.0, "default", "admission: jobs per GPU, no memory check",
    true};
constexpr NumberSpec kMaxJobsSpec{"max_jobs_per_gpu",
                                  "jobs",
                                  8.0,
                                  1.0,
                                  1024.0,
                                  "default",
                                  "admission: summed peak memory must fit; at most this many jobs",
                                  true};
// No per-client memory limits without MPS, so `offender` is not offered (models/oom_policy.h).
constexpr std::string_view kOomNames[] = {"all", "allocator"};
constexpr ChoiceSpec kOomSpec{
    "oom", kOomNames, static_cast<int>(OomPolicy::kAllocator), "default",
    "who dies when a GPU's jobs need more memory than it has (models/oom_policy.h)"};
constexpr NumberSpec kRecoverySpec{"fault_recovery_s",
                                   "s",
                                   0.0,
                                   0.0,
                                   1e6,
                                   "default",
                                   "out of memory kills: the GPU then refuses jobs this long"};

}  // namespace

TimeSliceModel::TimeSliceModel(JsonObject& p)
    : physics_(read_timeslice_physics(p)), memo_(kMemoEntries, 1, 3, kMemoResidents) {
  const ChoiceSetting admission = read(p, kAdmissionSpec);
  replicas_mode_ = admission.name == "replicas";
  const NumberSpec& jobs_spec = replicas_mode_ ? kReplicasSpec : kMaxJobsSpec;
  const NumberSetting jobs = read(p, jobs_spec);
  p.allow((replicas_mode_ ? kMaxJobsSpec : kReplicasSpec).key);
  max_jobs_ = static_cast<std::size_t>(jobs.value);
  const ChoiceSetting oom = read(p, kOomSpec);
  oom_ = static_cast<OomPolicy>(oom.index);
  const NumberSetting recovery = read(p, kRecoverySpec);
  recovery_ = Time::from_seconds(recovery.value);
  p.finish();

  declared_ = physics_.core;
  declared_.push_back(declare(jobs_spec, jobs));
  declared_.push_back(declare(kOomSpec, oom));
  declared_.push_back(declare(kRecoverySpec, recovery,
                              "out of memory kills: " + std::string(oom_policy_name(oom_))));
  declared_.push_back(physics_.launch_gap);
  declared_.insert(declared_.end(), physics_.measured.begin(), physics_.measured.end());
  jobs_.reserve(kScratchJobs);
  workspace_.resize(kScratchJobs);
}

namespace {

// Summed peak memory of the residents (their specs, not what they use right now): memory
// admission is a promise about the whole of their lives, as under mps `peak`.
MemoryMiB summed_peaks(const GpuView& gpu) {
  MemoryMiB peak;
  for (const JobSpec* r : gpu.residents) peak += r->memory;
  return peak;
}

}  // namespace

bool TimeSliceModel::admits(const GpuView& gpu, const JobSpec& job) const {
  if (gpu.residents.size() >= max_jobs_) return false;
  if (replicas_mode_) return true;
  return summed_peaks(gpu) + job.memory <= gpu.device.memory;
}

QueueReason TimeSliceModel::refusal(const GpuView& gpu, const JobSpec&) const {
  return gpu.residents.size() >= max_jobs_ || replicas_mode_ ? QueueReason::kAdmission
                                                             : QueueReason::kMemory;
}

std::optional<QueueReason> TimeSliceModel::room_refusal(double room, const JobSpec&) const {
  // gpu_room: -1 past max_jobs_per_gpu, else the free memory (replicas: 0).
  return room < 0.0 ? QueueReason::kAdmission : QueueReason::kMemory;
}

double TimeSliceModel::gpu_room(const GpuView& gpu) const {
  if (gpu.residents.size() >= max_jobs_) return -1.0;
  if (replicas_mode_) return 0.0;
  return static_cast<double>((gpu.device.memory - summed_peaks(gpu)).mib());
}

double TimeSliceModel::job_need(const JobSpec& job) const {
  return replicas_mode_ ? 0.0 : static_cast<double>(job.memory.mib());
}

void TimeSliceModel::compute_rates(const GpuView& gpu, std::span<double> rates,
                                   GpuLoad& load) const {
  model_rates(gpu, rates, load);
  // Measured pair speeds after the memo: it remembers the model's rates alone, so its key need
  // not hold the workloads.
  apply_colocation_speeds(gpu, rates, load);
}

void TimeSliceModel::model_rates(const GpuView& gpu, std::span<double> rates,
                                 GpuLoad& load) const {
  const int device = physics_.device_index(gpu.device);
  auto key = [&](RateMemo& memo) {
    memo.header(0) = static_cast<std::uint64_t>(device);
    for (std::size_t r = 0; r < gpu.residents.size(); ++r) {
      const JobSpec& j = *gpu.residents[r];
      memo.word(r, 0) = RateMemo::bits(j.sm_util);
      memo.word(r, 1) = static_cast<std::uint64_t>(j.kernel_length.us());
      memo.word(r, 2) = j.fixed_kernel_lengths ? 1 : 0;
    }
  };
  memo_.answer(rates, load, key, [&] {
    jobs_.clear();
    bool all_fixed = true;
    for (const JobSpec* j : gpu.residents) {
      jobs_.push_back(TimeSliceJob{j->sm_util, static_cast<double>(j->kernel_length.us())});
      all_fixed = all_fixed && j->fixed_kernel_lengths;
    }
    TimeSliceParams p = physics_.at(device);
    p.distribution = all_fixed ? BurstDistribution::kFixed : BurstDistribution::kExponential;
    const TimeSliceLoad l = timeslice_rates(jobs_, p, rates, workspace_);
    load.useful_busy = l.busy_fraction;
    load.overhead = l.switch_fraction;
  });
}

bool TimeSliceModel::slice_context(const GpuView& gpu, std::size_t resident,
                                   SliceContext& out) const {
  if (gpu.residents.size() < 2 || resident >= gpu.residents.size()) return false;
  const TimeSliceParams& p = physics_.at(physics_.device_index(gpu.device));
  out.slice_us = p.time_slice_us;
  out.switch_us = p.switch_cost_us;
  out.interference = p.interference;
  out.launch_gap_us = p.launch_gap_us;
  out.others.clear();
  // The same rule as compute_rates: fixed lengths only when every resident has them.
  bool all_fixed = true;
  for (std::size_t r = 0; r < gpu.residents.size(); ++r) {
    const JobSpec& j = *gpu.residents[r];
    all_fixed = all_fixed && j.fixed_kernel_lengths;
    if (r != resident) {
      // Another service submits one burst per request (its service time, kernels queued back
      // to back), not the trace's kernel length: that is how its own schedule serves it, and
      // a request's service time does not vary, so its bursts are of that fixed length. An LLM
      // endpoint has no service time (its engine sets each iteration's): its trace kernel
      // length, as a job's.
      const bool plain_service = j.service && !j.service->llm;
      const double kernel_us = plain_service ? j.service->request_gpu_burst_us()
                                             : static_cast<double>(j.kernel_length.us());
      out.others.push_back(SliceContender{j.sm_util, kernel_us, plain_service});
    }
  }
  out.fixed_lengths = all_fixed;
  return true;
}

bool TimeSliceModel::memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                                  Time& recovery) const {
  return apply_oom_policy(oom_, gpu, recovery_, killed, recovery);
}

}  // namespace gpumux
