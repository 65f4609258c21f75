// The echo of a device's measured value (models/device_measurements.h) that replaces a declared
// parameter's default on that device's GPUs.
#pragma once

#include "models/device_measurements.h"
#include "sim/base/parameter_spec.h"

namespace gpumux {

// "KEY@DEVICE", e.g. "switch_cost_us@H200-141GB".
ModelParameter declare_measured(const NumberSpec& spec, const DeviceMeasurement& measured);

}  // namespace gpumux
