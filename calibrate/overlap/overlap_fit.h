// Fitting the sharing models' parameters to measured kernel overlap (overlap_data.h), through
// the same prediction path as `gpumux calibrate overlap check` (overlap_predict.h), so that a fit
// is judged exactly as it will be used.
//
// What the measurements identify, per mode:
// - timeslice: switch_cost_us and interference (least squares, Levenberg-Marquardt on Eigen,
//   bounded by projection, several starts); time_slice_us among candidates (the driver default
//   and every measured kernel length). A slice no shorter than every kernel measured never
//   preempts one, so all such slices fit alike: the fit reports the shortest of them as a lower
//   bound, not as a measured value.
// - mps: interference (least squares as above).
// - both: launch_gap_us, the launch + synchronise gap, from the rows measured at duty 1
//   (alone_duty = kernel / (kernel + gap)): the median over them. It does not change predictions
//   of the file's rows (their sm_util is the measured alone_duty, gap included) but serves jobs
//   whose trace says sm_util 1. Absent when no row has duty 1.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibrate/overlap/overlap_data.h"
#include "calibrate/overlap/overlap_predict.h"
#include "models/device_registry.h"

namespace gpumux::calibration {

struct OverlapFit {
  std::string mode;
  nlohmann::json params;           // the model's fitted `params` (calibration file layout)
  OverlapError before, after;      // against the model's defaults for the device, and fitted
  std::vector<std::string> notes;  // what the data could not identify, bounds hit...
};

// Precondition: `data` has rows of `mode`. Throws InputError as predict_overlap does.
OverlapFit fit_overlap(const OverlapData& data, const std::string& mode,
                       const DeviceRegistry& devices);

// The calibration file (models/calibration_file.h, `gpumux calibrate overlap fit` layout) for
// `fits`.
nlohmann::json calibration_json(const OverlapData& data, const std::vector<OverlapFit>& fits,
                                const std::string& command);

}  // namespace gpumux::calibration
