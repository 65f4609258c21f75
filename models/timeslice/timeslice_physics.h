// The time-slicing physics parameters (slice, switch cost, interference, launch gap) as a
// scenario's `sharing.params` gives them, with where each value came from. Shared by the models
// whose rates come from time-slicing: `timeslice` and `fractional` (a limiter on top of it).
#pragma once

#include <string>
#include <vector>

#include "models/timeslice/timeslice_params.h"
#include "sim/core/device.h"
#include "sim/base/json_fields.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

// The device whose measurements (docs/gpu-facts.md "Measured here") replace the models' assumed
// defaults on GPUs of that profile.
inline constexpr std::string_view kH200DeviceName = "H200-141GB";

struct TimeSlicePhysics {
  TimeSliceParams params;
  TimeSliceParams h200_params;  // params with H200 measurements where params has defaults
  // Declarations, in report order: time_slice_us, switch_cost_us, interference.
  std::vector<ModelParameter> core;
  ModelParameter launch_gap;
  std::vector<ModelParameter> h200;  // the H200 values that replace defaults

  const TimeSliceParams& for_device(const DeviceProfile& device) const {
    return device.name == kH200DeviceName ? h200_params : params;
  }
};

// Reads `calibration` (a `gpumux colocation fit` file), `time_slice` (preset), `time_slice_us`,
// `switch_cost_us`, `interference` and `launch_gap_us` from `p`, marking each as known. Throws
// InputError naming the key. Explicit keys override the calibration file.
TimeSlicePhysics read_timeslice_physics(JsonObject& p);

}  // namespace gpumux
