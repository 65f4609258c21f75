// The time-slicing physics parameters (slice, switch cost, interference, launch gap) as a
// scenario's `sharing.params` gives them, with where each value came from. Shared by the models
// whose rates come from time-slicing: `timeslice` and `fractional` (a limiter on top of it).
// Each parameter is declared once below (sim/base/parameter_spec.h); values measured on a device
// (models/device_measurements.h) replace the defaults on GPUs of that device.
#pragma once

#include <string_view>
#include <vector>

#include "models/device_overlays.h"
#include "models/timeslice/timeslice_params.h"
#include "sim/base/json_fields.h"
#include "sim/base/parameter_spec.h"
#include "sim/core/device.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

// The declarations (key, unit, default, range, default's source, description).
inline constexpr std::string_view kTimeSlicePresetNames[] = {"default", "short", "medium", "long"};
inline constexpr ChoiceSpec kTimeSlicePresetSpec{
    "time_slice", kTimeSlicePresetNames, 0, "default",
    "nvidia-smi compute-policy --set-timeslice preset (short/medium/long durations unverified)"};
inline constexpr NumberSpec kTimeSliceSpec{"time_slice_us",
                                           "us",
                                           kDefaultTimeSliceUs,
                                           1.0,
                                           1e7,
                                           "default (open GPU kernel driver)",
                                           "time slice of a context",
                                           false,
                                           "time slice"};
inline constexpr NumberSpec kSwitchCostSpec{
    "switch_cost_us",
    "us",
    kDefaultSwitchCostUs,
    0.0,
    1e6,
    "default (assumption: no published measurement, GPU-FACTS)",
    "context-switch time during which nothing computes",
    false,
    "context-switch time"};
inline constexpr NumberSpec kTimeSliceInterferenceSpec{
    "interference",
    "per unit co-runner duty cycle",
    0.0,
    0.0,
    100.0,
    "default (pure time-slicing)",
    "kernel slowdown from co-runners' cache/TLB pollution"};
inline constexpr NumberSpec kTimeSliceLaunchGapSpec{
    "launch_gap_us",
    "us",
    0.0,
    0.0,
    1e6,
    "default (assumption: kernels back to back)",
    "shortest CPU gap between two kernels of a process (launch + synchronise)",
    false,
    "launch + synchronise gap between kernels"};

struct CalibrationKeys;

struct TimeSlicePhysics {
  // The scenario's parameters, and per measured device those with its measurements where the
  // scenario's are defaults.
  DeviceOverlays<TimeSliceParams> params;
  // Declarations, in report order: time_slice_us, switch_cost_us, interference.
  std::vector<ModelParameter> core;
  ModelParameter launch_gap;
  std::vector<ModelParameter> measured;  // the devices' values that replace defaults

  int device_index(const DeviceProfile& device) const { return params.index(device); }
  const TimeSliceParams& at(int index) const { return params.at(index); }
  const TimeSliceParams& for_device(const DeviceProfile& device) const {
    return params.for_device(device);
  }
};

// The parameters a calibration file's "timeslice" fit gives (models/calibration_file.h).
const CalibrationKeys& timeslice_calibration_keys();

// Reads `calibration` (a `gpumux calibrate pairs|overlap fit` file), `time_slice` (preset),
// `time_slice_us`, `switch_cost_us`, `interference` and `launch_gap_us` from `p`, marking each as
// known. Throws InputError naming the key. Explicit keys override the preset, which overrides the
// calibration file.
TimeSlicePhysics read_timeslice_physics(JsonObject& p);

}  // namespace gpumux
