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
  if (p.has("calibration")) {
    const Calibration c = read_calibration(p.required_string("calibration"), "timeslice");
    params_.switch_cost_us = c.switch_cost_us;
    params_.interference = c.interference;
    switch_source = interference_source = "calibration " + c.file;
  } else {
    p.allow("calibration");
  }
  std::string slice_source = "default (open GPU kernel driver)";
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
  };
  jobs_.reserve(kScratchJobs);
  workspace_.resize(kScratchJobs);
}

bool TimeSliceModel::admits(const GpuView& gpu, const JobSpec& job) const {
  if (gpu.residents.size() >= max_jobs_) return false;
  if (replicas_mode_) return true;
  return gpu.memory_used + job.memory <= gpu.device.memory;
}

double TimeSliceModel::gpu_room(const GpuView& gpu) const {
  if (gpu.residents.size() >= max_jobs_) return -1.0;
  if (replicas_mode_) return 0.0;
  return static_cast<double>((gpu.device.memory - gpu.memory_used).mib());
}

double TimeSliceModel::job_need(const JobSpec& job) const {
  return replicas_mode_ ? 0.0 : static_cast<double>(job.memory.mib());
}

void TimeSliceModel::compute_rates(const GpuView& gpu, std::span<double> rates,
                                   GpuLoad& load) const {
  jobs_.clear();
  for (const JobSpec* j : gpu.residents) {
    jobs_.push_back(TimeSliceJob{j->sm_util, static_cast<double>(j->kernel_length.us())});
  }
  const TimeSliceLoad l = timeslice_rates(jobs_, params_, rates, workspace_);
  load.useful_busy = l.busy_fraction;
  load.overhead = l.switch_fraction;
}

bool TimeSliceModel::memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                                  Time& recovery) const {
  return apply_oom_policy(oom_, gpu, recovery_, killed, recovery);
}

}  // namespace gpumux
