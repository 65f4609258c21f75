// The `gpumux calibrate` commands over measured kernel overlap (overlap_data.h):
//
//   fit   MEAS.csv -o CAL.json [--mode timeslice|mps]
//         Fits every parameter the measurements identify (overlap_fit.h) for each mode present
//         (or the one named), writes the calibration file atomically, and prints per mode the
//         fitted values, the residuals before (model defaults) and after, and what the data
//         could not identify.
//   check MEAS.csv [--calibration CAL.json] [--mode timeslice|mps] [--format table|csv]
//         Per row, measured vs predicted speed through the sharing models (overlap_predict.h),
//         a line per mode with its MAE, and as its LAST line exactly "MAE <value>" over every
//         row checked. The first line names the calibration used (or the model defaults).
//   fit   --mode mig SPEEDS.csv --workloads WORKLOADS.csv -o CAL.json [--device A100-40GB]
//   check --mode mig SPEEDS.csv --workloads WORKLOADS.csv [--calibration CAL.json]
//         Measured job speeds on MIG profiles (mig_speed_data.h, MISO's layout): the fit of the
//         mig job-speed model's width_base and width_per_bandwidth with the MAE of the built-in
//         defaults, the roofline and the plain duty-cycle form beside it, and cross-validation by
//         family (mig_speed_fit.h); the check prints per row measured vs predicted speed, a line
//         per family, and as its LAST line "MAE <value>" over every row except the device's
//         largest profile. Without --calibration the check uses the built-in defaults.
// Return codes: 0 success, 2 bad input (the InputError message on `err`; nothing printed on
// `out` and no file written).
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

namespace gpumux {

struct CalibrateFitCommand {
  std::string measurements, out_json, mode;     // mode empty: every mode present
  std::string workloads, device = "A100-40GB";  // --mode mig only
};

struct CalibrateCheckCommand {
  std::string measurements, calibration, mode, format = "table";
  std::string workloads, device = "A100-40GB";  // --mode mig only
};

void configure_calibrate_fit(CLI::App& sub, CalibrateFitCommand& cmd);
void configure_calibrate_check(CLI::App& sub, CalibrateCheckCommand& cmd);
int run_calibrate_fit(const CalibrateFitCommand& cmd, std::ostream& out, std::ostream& err);
int run_calibrate_check(const CalibrateCheckCommand& cmd, std::ostream& out, std::ostream& err);

}  // namespace gpumux
