// Predicting and fitting measured MIG job speeds (mig_speed_data.h) with the mig model's job-speed
// model (models/mig/instance_rate.h), through the same parameter reading the model does
// (read_mig_speed_params: `speed_model`, `width_base`, `width_per_bandwidth`, `calibration`).
//
// A workload becomes a job with sm_util = sm_util_pct / 100, mem_bw_util = mem_bw_util_pct / 100
// and sm_share 1 (not measured: the trace default). Its predicted speed on a profile P is its
// rate in P divided by its rate in the device's largest profile (the one the measurements are
// relative to, 7g.40gb on A100-40GB). Errors are over every row except those of the largest
// profile (1 by construction).
//
// The fit: width_base and width_per_bandwidth by least squares (Levenberg-Marquardt, bounded,
// three fixed starts: deterministic), and cross-validation by family: fit on every family but
// one, check the one left out.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibrate/overlap/mig_speed_data.h"
#include "models/mig/instance_rate.h"
#include "sim/core/device.h"

namespace gpumux::calibration {

// The speed-model settings `params` (a `sharing.params` object, e.g. {"calibration": "CAL.json"})
// give the mig model. Throws InputError naming the key or the calibration file's field.
MigSpeedParams mig_speed_params_from(const nlohmann::json& params, const std::string& where);

// The device's largest MIG profile (most compute slices, then memory): the reference.
const MigProfile& mig_reference_profile(const DeviceProfile& device);

// Predicted speed of every row. Throws InputError naming the speeds file's line and `profile`
// for a profile the device does not have.
std::vector<double> predict_mig_speeds(const MigSpeedData& data, const DeviceProfile& device,
                                       const MigSpeedParams& params);

struct MigSpeedError {
  int rows = 0;
  double mae = 0.0, rms = 0.0, max = 0.0;
  int worst_row = -1;
};
// Over the rows not on the reference profile and, when `family` is not empty, of that family.
MigSpeedError mig_speed_error(const MigSpeedData& data, const DeviceProfile& device,
                              const std::vector<double>& predicted, const std::string& family = {});

struct MigSpeedFold {
  std::string family;  // checked; fitted on the others
  MigSpeedParams params;
  MigSpeedError error;
};

struct MigSpeedFit {
  MigSpeedParams params;
  MigSpeedError after;              // fitted, on every row
  MigSpeedError defaults;           // the built-in defaults
  MigSpeedError roofline;           // speed_model roofline
  MigSpeedError duty_cycle;         // 1 / (u k + 1 - u) with every kernel as wide as the GPU
  std::vector<MigSpeedFold> folds;  // one per family, when there are at least two
  double cv_mae = 0.0;              // over the folds' rows together
  std::vector<std::string> notes;
};

MigSpeedFit fit_mig_speeds(const MigSpeedData& data, const DeviceProfile& device);

// The calibration file (models/calibration_file.h layout, model "mig").
nlohmann::json mig_calibration_json(const MigSpeedData& data, const DeviceProfile& device,
                                    const MigSpeedFit& fit, const std::string& command);

}  // namespace gpumux::calibration
