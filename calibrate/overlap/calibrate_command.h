// Two calibration sources (calibrate/registry.cc), measured kernel overlap (overlap_data.h)
// and measured job speeds on MIG profiles (mig_speed_data.h):
//
//   calibrate overlap fit MEAS.csv -o CAL.json [--mode timeslice|mps]
//         Fits every parameter the measurements identify (overlap_fit.h) for each mode present
//         (or the one named), writes the calibration file atomically, and prints per mode the
//         fitted values, the residuals before (model defaults) and after, and what the data
//         could not identify.
//   calibrate overlap check MEAS.csv [--calibration CAL.json] [--mode timeslice|mps]
//         [--format table|csv]
//         Per row, measured vs predicted speed through the sharing models (overlap_predict.h),
//         a line per mode with its MAE, and as its LAST line exactly "MAE <value>" over every
//         row checked. The first line names the calibration used (or the model defaults).
//   calibrate mig-speeds fit SPEEDS.csv --workloads WORKLOADS.csv -o CAL.json [--device D]
//   calibrate mig-speeds check SPEEDS.csv --workloads WORKLOADS.csv [--calibration CAL.json]
//         MISO's layout: the fit of the mig job-speed model's width_base and
//         width_per_bandwidth with the MAE of the built-in defaults, the roofline and the plain
//         duty-cycle form beside it, and cross-validation by family (mig_speed_fit.h); the check
//         prints per row measured vs predicted speed, a line per family, and as its LAST line
//         "MAE <value>" over every row except the device's largest profile. Without
//         --calibration the check uses the built-in defaults.
// The older forms `calibrate fit|check [--mode timeslice|mps|mig]` run the same functions (the
// mode "mig" choosing the MIG speeds); the files they write name that older form as their
// "command", whichever form ran, so that both forms write the same bytes.
// Return codes: 0 success, 2 bad input (the InputError message on `err`; nothing printed on
// `out` and no file written).
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

namespace gpumux::calibration {

struct CalibrateFitCommand {
  std::string measurements, out_json, mode;     // mode empty: every mode present
  std::string workloads, device = "A100-40GB";  // --mode mig only
};

struct CalibrateCheckCommand {
  std::string measurements, calibration, mode, format = "table";
  std::string workloads, device = "A100-40GB";  // --mode mig only
};

// `gpumux calibrate overlap fit|check` and `gpumux calibrate mig-speeds fit|check` (the
// mig-speeds forms set `mode` to "mig"; their --workloads is required).
void configure_overlap_fit(CLI::App& sub, CalibrateFitCommand& cmd);
void configure_overlap_check(CLI::App& sub, CalibrateCheckCommand& cmd);
void configure_mig_speeds_fit(CLI::App& sub, CalibrateFitCommand& cmd);
void configure_mig_speeds_check(CLI::App& sub, CalibrateCheckCommand& cmd);
// The older `gpumux calibrate fit|check [--mode timeslice|mps|mig]`, one form for both sources.
void configure_calibrate_fit(CLI::App& sub, CalibrateFitCommand& cmd);
void configure_calibrate_check(CLI::App& sub, CalibrateCheckCommand& cmd);
int run_calibrate_fit(const CalibrateFitCommand& cmd, std::ostream& out, std::ostream& err);
int run_calibrate_check(const CalibrateCheckCommand& cmd, std::ostream& out, std::ostream& err);

}  // namespace gpumux::calibration
