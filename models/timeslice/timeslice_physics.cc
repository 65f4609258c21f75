#include "models/timeslice/timeslice_physics.h"

#include <optional>
#include <stdexcept>

#include "models/calibration_file.h"
#include "models/measured_parameter.h"

namespace gpumux {

TimeSlicePhysics read_timeslice_physics(JsonObject& p) {
  // Calibration first: a file from `gpumux colocation fit` supplies the switch cost and the
  // interference term (and the slice and launch gap when it has them).
  std::optional<Calibration> c;
  if (p.has("calibration")) {
    c = read_calibration(p.required_string("calibration"), "timeslice");
  } else {
    p.allow("calibration");
  }
  const std::string from_file = c ? "calibration " + c->file : "";
  const ChoiceSetting preset = read(p, kTimeSlicePresetSpec);
  NumberSetting slice = read(p, kTimeSliceSpec, c ? c->time_slice_us : std::nullopt, from_file);
  if (slice.source != "scenario" && preset.source == "scenario") {
    const auto chosen = static_cast<TimeSlicePreset>(preset.index);
    slice.value = time_slice_us(chosen);
    if (chosen != TimeSlicePreset::kDefault) {
      slice.source =
          "scenario preset '" + std::string(preset.name) + "' (duration unverified, GPU-FACTS)";
      slice.is_default = false;
    }
  }
  const NumberSetting switch_cost =
      read(p, kSwitchCostSpec, c ? std::optional(c->switch_cost_us) : std::nullopt, from_file);
  const NumberSetting interference = read(
      p, kTimeSliceInterferenceSpec, c ? std::optional(c->interference) : std::nullopt, from_file);
  const NumberSetting launch_gap =
      read(p, kTimeSliceLaunchGapSpec, c ? c->launch_gap_us : std::nullopt, from_file);

  TimeSliceParams params;
  params.time_slice_us = slice.value;
  params.switch_cost_us = switch_cost.value;
  params.interference = interference.value;
  params.launch_gap_us = launch_gap.value;
  TimeSlicePhysics out;
  out.params = DeviceOverlays<TimeSliceParams>(params);
  // On a device with measurements (docs/gpu-facts.md "Measured here"), values still at their
  // defaults take what was measured there.
  for (const DeviceMeasurement& m : device_measurements_of("timeslice")) {
    const NumberSpec* spec = nullptr;
    const NumberSetting* setting = nullptr;
    double TimeSliceParams::*field = nullptr;
    if (m.parameter == kSwitchCostSpec.key) {
      spec = &kSwitchCostSpec, setting = &switch_cost, field = &TimeSliceParams::switch_cost_us;
    } else if (m.parameter == kTimeSliceSpec.key) {
      spec = &kTimeSliceSpec, setting = &slice, field = &TimeSliceParams::time_slice_us;
    } else if (m.parameter == kTimeSliceLaunchGapSpec.key) {
      spec = &kTimeSliceLaunchGapSpec, setting = &launch_gap,
      field = &TimeSliceParams::launch_gap_us;
    } else {
      throw std::logic_error("device measurement of unknown timeslice parameter " +
                             std::string(m.parameter));
    }
    if (!setting->is_default) continue;
    out.params.on(m.device).*field = m.value;
    out.measured.push_back(declare_measured(*spec, m));
  }
  out.core = {declare(kTimeSliceSpec, slice), declare(kSwitchCostSpec, switch_cost),
              declare(kTimeSliceInterferenceSpec, interference)};
  out.launch_gap = declare(kTimeSliceLaunchGapSpec, launch_gap);
  return out;
}

}  // namespace gpumux
