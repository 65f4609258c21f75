#include "models/timeslice/timeslice_model.h"

#include <algorithm>

namespace gpumux {

namespace {

constexpr std::size_t kScratchJobs = 64;
// The rate memo: entries (about 1.2 MB) and the residents a key holds. A key's
// header is whether the device takes the H200 parameters; per resident: sm_util's bits, the
// kernel length (us), whether its lengths are fixed.
constexpr std::size_t kMemoEntries = 4096;
constexpr std::size_t kMemoResidents = 8;

}  // namespace

TimeSliceModel::TimeSliceModel(JsonObject& p) : memo_(kMemoEntries, 1, 3, kMemoResidents) {
  const TimeSlicePhysics physics = read_timeslice_physics(p);
  params_ = physics.params;
  h200_params_ = physics.h200_params;
  const std::string admission = p.optional_string("admission", "memory");
  if (admission != "memory" && admission != "replicas") {
    throw InputError(p.where("admission"), "admission",
                     "expected 'memory' or 'replicas', got '" + admission + "'");
  }
  replicas_mode_ = admission == "replicas";
  max_jobs_ =
      static_cast<std::size_t>(replicas_mode_ ? p.optional_int("replicas", 4, 1, 1024)
                                              : p.optional_int("max_jobs_per_gpu", 8, 1, 1024));
  if (replicas_mode_) {
    p.allow("max_jobs_per_gpu");
  } else {
    p.allow("replicas");
  }
  const std::string oom = p.optional_string("oom", "allocator");
  if (oom != "allocator" && oom != "all") {  // no per-client limits without MPS
    throw InputError(p.where("oom"), "oom", "expected 'allocator' or 'all', got '" + oom + "'");
  }
  oom_ = parse_oom_policy(oom);
  recovery_ = Time::from_seconds(p.optional_number("fault_recovery_s", 0.0, 0.0, 1e6));
  p.finish();

  declared_ = physics.core;
  declared_.push_back(
      {replicas_mode_ ? "replicas" : "max_jobs_per_gpu", static_cast<double>(max_jobs_), "jobs",
       p.has(replicas_mode_ ? "replicas" : "max_jobs_per_gpu") ? "scenario" : "default",
       replicas_mode_ ? "admission: jobs per GPU, no memory check"
                      : "admission: summed peak memory must fit; at most this many jobs"});
  declared_.push_back(ModelParameter::chosen(
      "oom", static_cast<int>(oom_), oom_policy_name(oom_), p.has("oom") ? "scenario" : "default",
      "who dies when a GPU's jobs need more memory than it has (models/oom_policy.h)"));
  declared_.push_back({"fault_recovery_s", recovery_.seconds(), "s",
                       p.has("fault_recovery_s") ? "scenario" : "default",
                       std::string("out of memory kills: ") + std::string(oom_policy_name(oom_))});
  declared_.push_back(physics.launch_gap);
  declared_.insert(declared_.end(), physics.h200.begin(), physics.h200.end());
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
  const bool h200 = gpu.device.name == kH200DeviceName;
  const bool remembered = memo_.remembers(gpu.residents.size());
  if (remembered) {
    memo_.header(0) = h200 ? 1 : 0;
    for (std::size_t r = 0; r < gpu.residents.size(); ++r) {
      const JobSpec& j = *gpu.residents[r];
      memo_.word(r, 0) = RateMemo::bits(j.sm_util);
      memo_.word(r, 1) = static_cast<std::uint64_t>(j.kernel_length.us());
      memo_.word(r, 2) = j.fixed_kernel_lengths ? 1 : 0;
    }
    if (memo_.find(rates, load)) return;
  }
  jobs_.clear();
  bool all_fixed = true;
  for (const JobSpec* j : gpu.residents) {
    jobs_.push_back(TimeSliceJob{j->sm_util, static_cast<double>(j->kernel_length.us())});
    all_fixed = all_fixed && j->fixed_kernel_lengths;
  }
  TimeSliceParams p = h200 ? h200_params_ : params_;
  p.distribution = all_fixed ? BurstDistribution::kFixed : BurstDistribution::kExponential;
  const TimeSliceLoad l = timeslice_rates(jobs_, p, rates, workspace_);
  load.useful_busy = l.busy_fraction;
  load.overhead = l.switch_fraction;
  if (remembered) memo_.store(rates, load);
}

bool TimeSliceModel::memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                                  Time& recovery) const {
  return apply_oom_policy(oom_, gpu, recovery_, killed, recovery);
}

}  // namespace gpumux
