#include "models/timeslice_model.h"

#include <algorithm>

#include "models/calibration_file.h"

namespace gpumux {

namespace {

constexpr std::size_t kScratchJobs = 64;

}  // namespace

TimeSliceModel::TimeSliceModel(JsonObject& p) {
  // Calibration first: a file from `gpumux colocation fit` supplies the switch cost and the
  // interference term; explicit keys below override it.
  std::string switch_source = "default (assumption: no published measurement, GPU-FACTS)";
  std::string interference_source = "default (pure time-slicing)";
  std::string slice_source = "default (open GPU kernel driver)";
  std::string launch_source = "default (assumption: kernels back to back)";
  if (p.has("calibration")) {
    const Calibration c = read_calibration(p.required_string("calibration"), "timeslice");
    params_.switch_cost_us = c.switch_cost_us;
    params_.interference = c.interference;
    switch_source = interference_source = "calibration " + c.file;
    if (c.time_slice_us) {
      params_.time_slice_us = *c.time_slice_us;
      slice_source = switch_source;
    }
    if (c.launch_gap_us) {
      params_.launch_gap_us = *c.launch_gap_us;
      launch_source = switch_source;
    }
  } else {
    p.allow("calibration");
  }
  if (p.has("time_slice")) {
    const std::string preset = p.required_string("time_slice");
    if (preset == "default") {
      params_.time_slice_us = time_slice_us(TimeSlicePreset::kDefault);
    } else if (preset == "short" || preset == "medium" || preset == "long") {
      params_.time_slice_us = time_slice_us(preset == "short"    ? TimeSlicePreset::kShort
                                            : preset == "medium" ? TimeSlicePreset::kMedium
                                                                 : TimeSlicePreset::kLong);
      slice_source = "scenario preset '" + preset + "' (duration unverified, GPU-FACTS)";
    } else {
      throw InputError(p.where("time_slice"), "time_slice",
                       "expected default, short, medium or long, got '" + preset + "'");
    }
  } else {
    p.allow("time_slice");
  }
  if (p.has("time_slice_us")) {
    params_.time_slice_us = p.required_number("time_slice_us", 1.0, 1e7);
    slice_source = "scenario";
  } else {
    p.allow("time_slice_us");
  }
  if (p.has("switch_cost_us")) {
    params_.switch_cost_us = p.required_number("switch_cost_us", 0.0, 1e6);
    switch_source = "scenario";
  } else {
    p.allow("switch_cost_us");
  }
  if (p.has("interference")) {
    params_.interference = p.required_number("interference", 0.0, 100.0);
    interference_source = "scenario";
  } else {
    p.allow("interference");
  }
  if (p.has("launch_gap_us")) {
    params_.launch_gap_us = p.required_number("launch_gap_us", 0.0, 1e6);
    launch_source = "scenario";
  } else {
    p.allow("launch_gap_us");
  }
  // On an H200, values still at their defaults take what was measured there (GPU-FACTS).
  h200_params_ = params_;
  const std::string measured = "measured on H200 (GPU-FACTS; gpumux calibrate fit)";
  auto is_default = [](const std::string& source) { return source.rfind("default", 0) == 0; };
  std::vector<ModelParameter> h200_declared;
  if (is_default(switch_source)) {
    h200_params_.switch_cost_us = kH200SwitchCostUs;
    h200_declared.push_back({"switch_cost_us@H200-141GB", kH200SwitchCostUs, "us", measured,
                             "context-switch time on H200 GPUs"});
  }
  if (is_default(slice_source)) {
    h200_params_.time_slice_us = kH200TimeSliceUs;
    h200_declared.push_back({"time_slice_us@H200-141GB", kH200TimeSliceUs, "us",
                             measured + ": a lower bound, 2 ms kernels were never preempted",
                             "time slice on H200 GPUs"});
  }
  if (is_default(launch_source)) {
    h200_params_.launch_gap_us = kH200LaunchGapUs;
    h200_declared.push_back({"launch_gap_us@H200-141GB", kH200LaunchGapUs, "us", measured,
                             "launch + synchronise gap between kernels on H200 GPUs"});
  }
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

  declared_ = {
      {"time_slice_us", params_.time_slice_us, "us", slice_source, "time slice of a context"},
      {"switch_cost_us", params_.switch_cost_us, "us", switch_source,
       "context-switch time during which nothing computes"},
      {"interference", params_.interference, "per unit co-runner duty cycle", interference_source,
       "kernel slowdown from co-runners' cache/TLB pollution"},
      {replicas_mode_ ? "replicas" : "max_jobs_per_gpu", static_cast<double>(max_jobs_), "jobs",
       p.has(replicas_mode_ ? "replicas" : "max_jobs_per_gpu") ? "scenario" : "default",
       replicas_mode_ ? "admission: jobs per GPU, no memory check"
                      : "admission: summed peak memory must fit; at most this many jobs"},
      {"fault_recovery_s", recovery_.seconds(), "s",
       p.has("fault_recovery_s") ? "scenario" : "default",
       std::string("out of memory kills: ") + std::string(oom_policy_name(oom_))},
      {"launch_gap_us", params_.launch_gap_us, "us", launch_source,
       "shortest CPU gap between two kernels of a process (launch + synchronise)"},
  };
  declared_.insert(declared_.end(), h200_declared.begin(), h200_declared.end());
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
  jobs_.clear();
  bool all_fixed = true;
  for (const JobSpec* j : gpu.residents) {
    jobs_.push_back(TimeSliceJob{j->sm_util, static_cast<double>(j->kernel_length.us())});
    all_fixed = all_fixed && j->fixed_kernel_lengths;
  }
  TimeSliceParams p = gpu.device.name == kH200DeviceName ? h200_params_ : params_;
  p.distribution = all_fixed ? BurstDistribution::kFixed : BurstDistribution::kExponential;
  const TimeSliceLoad l = timeslice_rates(jobs_, p, rates, workspace_);
  load.useful_busy = l.busy_fraction;
  load.overhead = l.switch_fraction;
}

bool TimeSliceModel::memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                                  Time& recovery) const {
  return apply_oom_policy(oom_, gpu, recovery_, killed, recovery);
}

}  // namespace gpumux
