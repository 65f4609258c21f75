// The measurements: one H200 (docs/gpu-facts.md "Measured here"), fitted by `gpumux calibrate
// fit` on ../shared/data/h200/overlap_train.csv and checked on the held-out sets
// (docs/validation.md).
#include "models/device_measurements.h"

namespace gpumux {

namespace {

constexpr std::string_view kH200 = "H200-141GB";
constexpr std::string_view kFit = "measured on H200 (GPU-FACTS; gpumux calibrate fit)";

}  // namespace

const std::vector<DeviceMeasurement>& device_measurements() {
  static const std::vector<DeviceMeasurement> table = {
      {kH200, "H200", "timeslice", "switch_cost_us", 137.0, kFit},
      // 2 ms kernels were never preempted, so the slice is at least that long; longer values
      // fit the measurements equally well.
      {kH200, "H200", "timeslice", "time_slice_us", 2000.0,
       "measured on H200 (GPU-FACTS; gpumux calibrate fit): a lower bound, 2 ms kernels were "
       "never preempted"},
      {kH200, "H200", "timeslice", "launch_gap_us", 9.0, kFit},
      // Fitted with block-level SM allocation (thread blocks hold their SMs).
      {kH200, "H200", "mps", "interference", 0.061, kFit},
      {kH200, "H200", "mps", "launch_gap_us", 9.0, kFit},
  };
  return table;
}

std::vector<DeviceMeasurement> device_measurements_of(std::string_view model) {
  std::vector<DeviceMeasurement> out;
  for (const auto& m : device_measurements()) {
    if (m.model == model) out.push_back(m);
  }
  return out;
}

}  // namespace gpumux
