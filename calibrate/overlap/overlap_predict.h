// Predicting measured kernel overlap (overlap_data.h) with the sharing models, through the same
// code `gpumux run` uses: each set becomes jobs (sm_util = alone_duty, sm_share, kernel_us,
// fixed kernel and gap lengths, as the probe runs them) resident on one GPU of the row's device
// profile, and the model's compute_rates gives their rates. A row's predicted speed is its
// rate together divided by its rate alone under the same model (the measurement's speed is
// relative to alone in the same mode and active-thread cap).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "calibrate/overlap/overlap_data.h"
#include "models/device_registry.h"

namespace gpumux::calibration {

// Predicted speed of every row whose mode is `mode` ("timeslice" or "mps"); other rows get NaN.
// `params` is a `sharing.params` object for that model (e.g. {"calibration": "CAL.json"} or
// fitted values); for mps each set's active_thread_pct is added to it. Throws InputError for a
// device the registry does not know (naming file:line) or a bad parameter.
std::vector<double> predict_overlap(const OverlapData& data, const std::string& mode,
                                    const nlohmann::json& params, const DeviceRegistry& devices);

// Absolute-error summary over the rows predicted (non-NaN).
struct OverlapError {
  int rows = 0;
  double mae = 0.0, rms = 0.0, max = 0.0;
  int worst_row = -1;
};
OverlapError overlap_error(const OverlapData& data, const std::vector<double>& predicted);

}  // namespace gpumux::calibration
