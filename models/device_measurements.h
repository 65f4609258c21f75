// Model parameters measured on real devices (docs/gpu-facts.md "Measured here"), as data beside
// the device profiles (builtin_devices.cc): on a GPU of that profile, a parameter still at its
// assumed default takes the measured value, and every run's parameter echo lists the measured
// value as "KEY@DEVICE" with its source. Models look their parameters up here by their own name;
// no model compares device names.
#pragma once

#include <string_view>
#include <vector>

namespace gpumux {

struct DeviceMeasurement {
  std::string_view device;     // device profile name, e.g. "H200-141GB"
  std::string_view label;      // the device as descriptions name it, e.g. "H200"
  std::string_view model;      // whose parameter: "timeslice" (also fractional's physics), "mps"
  std::string_view parameter;  // the key in sharing.params, e.g. "switch_cost_us"
  double value = 0.0;          // in the parameter's unit
  std::string_view source;     // how it was measured
};

// Every measurement, in the order the echo lists them.
const std::vector<DeviceMeasurement>& device_measurements();

// The measurements of one model's parameters, in the same order.
std::vector<DeviceMeasurement> device_measurements_of(std::string_view model);

}  // namespace gpumux
