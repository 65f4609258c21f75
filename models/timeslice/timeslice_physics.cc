#include "models/timeslice/timeslice_physics.h"

#include <optional>

#include "models/calibration_file.h"
#include "models/measured_parameter.h"

namespace gpumux {

namespace {

// A fit always gives the switch cost and the interference (a fit without them measured none),
// and the slice and launch gap when it measured them.
constexpr CalibrationKey kCalibrated[] = {{&kTimeSliceInterferenceSpec, 0.0},
                                          {&kSwitchCostSpec, 0.0},
                                          {&kTimeSliceSpec},
                                          {&kTimeSliceLaunchGapSpec}};
// The pairs fit's mapping from a measured config to model inputs.
constexpr std::string_view kIgnored[] = {"kernel_us", "util_exponent", "util_scale"};

}  // namespace

const CalibrationKeys& timeslice_calibration_keys() {
  static const CalibrationKeys keys{"timeslice", kCalibrated, kIgnored};
  return keys;
}

TimeSlicePhysics read_timeslice_physics(JsonObject& p) {
  // Calibration first: a fitted file supplies the switch cost and the interference term (and
  // the slice and launch gap when it has them).
  const std::optional<Calibration> c = read_calibration_param(p, timeslice_calibration_keys());
  const ChoiceSetting preset = read(p, kTimeSlicePresetSpec);
  NumberSetting slice = read(p, kTimeSliceSpec, c);
  if (slice.source != "scenario" && preset.source == "scenario") {
    const auto chosen = static_cast<TimeSlicePreset>(preset.index);
    slice.value = time_slice_us(chosen);
    if (chosen != TimeSlicePreset::kDefault) {
      slice.source =
          "scenario preset '" + std::string(preset.name) + "' (duration unverified, GPU-FACTS)";
      slice.is_default = false;
    }
  }
  const NumberSetting switch_cost = read(p, kSwitchCostSpec, c);
  const NumberSetting interference = read(p, kTimeSliceInterferenceSpec, c);
  const NumberSetting launch_gap = read(p, kTimeSliceLaunchGapSpec, c);

  TimeSliceParams params;
  params.time_slice_us = slice.value;
  params.switch_cost_us = switch_cost.value;
  params.interference = interference.value;
  params.launch_gap_us = launch_gap.value;
  TimeSlicePhysics out;
  out.params = DeviceOverlays<TimeSliceParams>(params);
  // On a device with measurements (docs/gpu-facts.md "Measured here"), values still at their
  // defaults take what was measured there.
  out.measured = apply_measurements<TimeSliceParams>(
      out.params, "timeslice",
      {{kSwitchCostSpec, &TimeSliceParams::switch_cost_us, switch_cost.is_default},
       {kTimeSliceSpec, &TimeSliceParams::time_slice_us, slice.is_default},
       {kTimeSliceLaunchGapSpec, &TimeSliceParams::launch_gap_us, launch_gap.is_default}});
  out.core = {declare(kTimeSliceSpec, slice), declare(kSwitchCostSpec, switch_cost),
              declare(kTimeSliceInterferenceSpec, interference)};
  out.launch_gap = declare(kTimeSliceLaunchGapSpec, launch_gap);
  return out;
}

}  // namespace gpumux
