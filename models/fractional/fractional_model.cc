#include "models/fractional/fractional_model.h"

#include <algorithm>

#include "models/fractional/limiter.h"

namespace gpumux {

namespace {

constexpr double kMinRate = 1e-9;
constexpr int kWholeGpuMilli = 1000;

// The limiter's parameters, declared once (sim/base/parameter_spec.h); the time-slicing physics
// ones are in models/timeslice/timeslice_physics.h.
constexpr SwitchSpec kWorkConservingSpec{
    "work_conserving", false, "default (strict limiter)",
    "true: the limiter hands time other jobs leave unused to jobs that want more; false: caps "
    "each job at its share"};
constexpr NumberSpec kMaxJobsSpec{
    "max_jobs_per_gpu",
    "jobs",
    64.0,
    1.0,
    1000.0,
    "default",
    "admission: shares sum to <= 1000 milli, quotas to <= device memory, at most this many jobs",
    true};

}  // namespace

FractionalModel::FractionalModel(JsonObject& p) : physics_(read_timeslice_physics(p)) {
  const SwitchSetting work_conserving = read(p, kWorkConservingSpec);
  work_conserving_ = work_conserving.on;
  const NumberSetting max_jobs = read(p, kMaxJobsSpec);
  max_jobs_ = static_cast<std::size_t>(max_jobs.value);
  p.finish();
  declared_ = physics_.core;
  declared_.push_back(declare(
      kWorkConservingSpec, work_conserving,
      work_conserving_ ? "limiter hands time other jobs leave unused to jobs that want more"
                       : "limiter caps each job at its share; unused time is lent to nobody"));
  declared_.push_back(declare(kMaxJobsSpec, max_jobs));
  declared_.push_back(physics_.launch_gap);
  declared_.insert(declared_.end(), physics_.measured.begin(), physics_.measured.end());
  for (auto* v : {&duty_, &share_, &granted_, &inner_rates_}) v->resize(max_jobs_);
  jobs_.reserve(max_jobs_);
  workspace_.resize(max_jobs_);
}

namespace {

int summed_milli(const GpuView& gpu) {
  int milli = 0;
  for (const JobSpec* r : gpu.residents) milli += r->gpu_milli;
  return milli;
}

}  // namespace

bool FractionalModel::admits(const GpuView& gpu, const JobSpec& job) const {
  if (gpu.residents.size() >= max_jobs_) return false;
  if (summed_milli(gpu) + job.gpu_milli > kWholeGpuMilli) return false;
  MemoryMiB quotas = quota(job);
  for (const JobSpec* r : gpu.residents) quotas += quota(*r);
  return quotas <= gpu.device.memory;
}

QueueReason FractionalModel::refusal(const GpuView& gpu, const JobSpec& job) const {
  if (summed_milli(gpu) + job.gpu_milli > kWholeGpuMilli) return QueueReason::kGpus;
  if (gpu.residents.size() >= max_jobs_) return QueueReason::kAdmission;
  return QueueReason::kMemory;
}

double FractionalModel::gpu_room(const GpuView& gpu) const {
  if (gpu.residents.size() >= max_jobs_) return -1.0;
  return static_cast<double>(kWholeGpuMilli - summed_milli(gpu));
}

double FractionalModel::job_need(const JobSpec& job) const {
  return static_cast<double>(job.gpu_milli);
}

void FractionalModel::compute_rates(const GpuView& gpu, std::span<double> rates,
                                    GpuLoad& load) const {
  const std::size_t n = gpu.residents.size();
  const TimeSliceParams& base = physics_.for_device(gpu.device);
  jobs_.clear();
  bool all_fixed = true;
  for (std::size_t i = 0; i < n; ++i) {
    const JobSpec& j = *gpu.residents[i];
    const double kernel_us = static_cast<double>(j.kernel_length.us());
    duty_[i] = effective_cycle(j.sm_util, kernel_us, base.launch_gap_us).sm_util;
    share_[i] = static_cast<double>(j.gpu_milli) / kWholeGpuMilli;
    all_fixed = all_fixed && j.fixed_kernel_lengths;
  }
  limiter_grants(std::span<const double>(duty_.data(), n),
                 std::span<const double>(share_.data(), n), work_conserving_,
                 std::span<double>(granted_.data(), n));
  for (std::size_t i = 0; i < n; ++i) {
    const JobSpec& j = *gpu.residents[i];
    jobs_.push_back(TimeSliceJob{granted_[i], static_cast<double>(j.kernel_length.us())});
  }
  TimeSliceParams p = base;
  p.distribution = all_fixed ? BurstDistribution::kFixed : BurstDistribution::kExponential;
  const TimeSliceLoad l =
      timeslice_rates(jobs_, p, std::span<double>(inner_rates_.data(), n), workspace_);
  for (std::size_t i = 0; i < n; ++i) {
    rates[i] = std::clamp(inner_rates_[i] * granted_[i] / duty_[i], kMinRate, 1.0);
  }
  load.useful_busy = l.busy_fraction;
  load.overhead = l.switch_fraction;
}

bool FractionalModel::memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                                   Time& recovery) const {
  recovery = Time::zero();
  bool any = false;
  for (std::size_t i = 0; i < gpu.residents.size(); ++i) {
    const JobSpec& j = *gpu.residents[i];
    const MemoryMiB in_use = gpu.resident_memory.empty() ? j.memory : gpu.resident_memory[i];
    if (in_use > quota(j)) {
      killed[i] = 1;
      any = true;
    }
  }
  return any;
}

}  // namespace gpumux
