// The built-in efficiencies of the LLM performance model (roofline_time_model.h), one row per
// device: fitted on that device's measured operator profiles where such profiles exist, carried
// over from the closest fitted device otherwise (the roofline's peaks are the device's own; only
// the efficiencies carry over). Each row's `source` says which, and names the command that
// produced its numbers (docs/llm-performance-model.md has the fit errors).
#pragma once

#include <string>
#include <vector>

#include "models/llm/roofline_time_model.h"
#include "sim/core/device.h"

namespace gpumux {

// The row for `device.name`; a device without a row gets the generic stated default (nothing
// fitted, `source` says so). The reference stays valid for the program's lifetime.
const LlmEfficiency& default_llm_efficiency(const DeviceProfile& device);

// The names of the devices that have a row of their own, in table order.
const std::vector<std::string>& llm_efficiency_device_names();

}  // namespace gpumux
