#include "models/timeslice/timeslice_physics.h"

#include "models/calibration_file.h"

namespace gpumux {

TimeSlicePhysics read_timeslice_physics(JsonObject& p) {
  TimeSlicePhysics out;
  TimeSliceParams& params_ = out.params;
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
  // On an H200, values still at their defaults take what was measured there (docs/gpu-facts.md).
  TimeSliceParams& h200_params_ = out.h200_params;
  h200_params_ = params_;
  const std::string measured = "measured on H200 (GPU-FACTS; gpumux calibrate fit)";
  auto is_default = [](const std::string& source) { return source.rfind("default", 0) == 0; };
  std::vector<ModelParameter>& h200_declared = out.h200;
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
  out.core = {
      {"time_slice_us", params_.time_slice_us, "us", slice_source, "time slice of a context"},
      {"switch_cost_us", params_.switch_cost_us, "us", switch_source,
       "context-switch time during which nothing computes"},
      {"interference", params_.interference, "per unit co-runner duty cycle", interference_source,
       "kernel slowdown from co-runners' cache/TLB pollution"},
  };
  out.launch_gap = {"launch_gap_us", params_.launch_gap_us, "us", launch_source,
                    "shortest CPU gap between two kernels of a process (launch + synchronise)"};
  return out;
}

}  // namespace gpumux
