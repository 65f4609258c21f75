#include "calibrate/overlap/calibrate_command.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "calibrate/overlap/mig_speed_data.h"
#include "calibrate/overlap/mig_speed_fit.h"
#include "calibrate/overlap/overlap_fit.h"
#include "calibrate/overlap/overlap_predict.h"
#include "models/calibration_file.h"
#include "models/registry.h"
#include "sim/base/atomic_file.h"
#include "sim/base/input_error.h"
#include "sim/base/terminal_text.h"

namespace gpumux::calibration {

namespace {

std::vector<std::string> modes_to_use(const OverlapData& data, const std::string& mode) {
  const std::vector<std::string> present = overlap_modes(data);
  if (mode.empty()) return present;
  if (std::find(present.begin(), present.end(), mode) == present.end()) {
    throw InputError(data.file, "mode", "no rows of mode '" + mode + "' in the measurements");
  }
  return {mode};
}

// The words the older form's --mode takes: the models fitted on overlap rows, and the one fitted
// on MIG per-profile speeds.
std::vector<std::string> older_form_modes() {
  std::vector<std::string> modes = contention_model_names();
  modes.push_back(mig_speeds_model());
  return modes;
}

bool is_mig_speeds(const std::string& mode) { return mode == mig_speeds_model(); }

std::string row_name(const OverlapRow& r) { return r.set + "/" + std::to_string(r.member); }

// --workloads and --device belong to --mode mig, which needs --workloads.
void check_mig_options(const std::string& mode, const std::string& workloads,
                       const std::string& device) {
  if (is_mig_speeds(mode) && workloads.empty()) {
    throw InputError("--workloads", "workloads",
                     "--mode mig needs --workloads WORKLOADS.csv (per workload sm_util_pct and "
                     "mem_bw_util_pct measured on the whole GPU)");
  }
  if (!is_mig_speeds(mode) && !workloads.empty()) {
    throw InputError("--workloads", "workloads", "--workloads goes with --mode mig only");
  }
  if (!is_mig_speeds(mode) && device != "A100-40GB") {
    throw InputError("--device", "device",
                     "--device goes with --mode mig only (overlap rows name their device)");
  }
}

const DeviceProfile& mig_device(const DeviceRegistry& devices, const std::string& name) {
  const DeviceProfile& d = devices.get(name, "--device");
  if (d.mig_profiles.empty()) {
    throw InputError("--device", "device", "'" + name + "' has no MIG profiles");
  }
  return d;
}

std::string workload_name(const MigSpeedRow& r) {
  return r.workload + "/" + std::to_string(r.batch);
}

int run_mig_fit(const CalibrateFitCommand& cmd, std::ostream& out) {
  const MigSpeedData data = read_mig_speeds(cmd.measurements, cmd.workloads);
  const DeviceRegistry devices = DeviceRegistry::with_builtins();
  const DeviceProfile& device = mig_device(devices, cmd.device);
  const MigSpeedFit fit = fit_mig_speeds(data, device);
  const std::string command = "gpumux calibrate fit --mode mig " + cmd.measurements +
                              " --workloads " + cmd.workloads + " -o " + cmd.out_json +
                              (cmd.device == "A100-40GB" ? "" : " --device " + cmd.device);
  std::ostringstream text;
  text << std::setprecision(4);
  text << "measurements: " << data.speeds_file << " (" << data.rows.size() << " rows), workloads "
       << data.workloads_file << " (" << data.workloads.size() << "), device " << device.name
       << ", speeds relative to " << mig_reference_profile(device).name << "\n";
  text << "mig: " << fit.after.rows << " rows; fitted width_base=" << fit.params.width_base
       << " width_per_bandwidth=" << fit.params.width_per_bandwidth << "\n";
  text << "  residuals: MAE " << fit.after.mae << " (built-in defaults " << fit.defaults.mae
       << ", roofline " << fit.roofline.mae << ", duty-cycle form " << fit.duty_cycle.mae
       << "), RMS " << fit.after.rms << ", max " << fit.after.max;
  if (fit.after.worst_row >= 0) {
    const MigSpeedRow& w = data.rows[static_cast<std::size_t>(fit.after.worst_row)];
    text << " at " << workload_name(w) << " " << w.profile;
  }
  text << "\n";
  if (!fit.folds.empty()) {
    text << "  cross-validation by family (fit on the others, check this one): MAE " << fit.cv_mae
         << "\n";
    for (const MigSpeedFold& f : fit.folds) {
      text << "    " << f.family << ": " << f.error.rows << " rows, MAE " << f.error.mae
           << " (width_base=" << f.params.width_base
           << " width_per_bandwidth=" << f.params.width_per_bandwidth << ")\n";
    }
  }
  for (const std::string& note : fit.notes) text << "  note: " << note << "\n";
  AtomicFile file(cmd.out_json);
  file.stream() << mig_calibration_json(data, device, fit, command).dump(2) << "\n";
  file.commit();
  out << text.str() << "wrote " << cmd.out_json << "\n";
  return 0;
}

int run_mig_check(const CalibrateCheckCommand& cmd, std::ostream& out, std::ostream& err) {
  const MigSpeedData data = read_mig_speeds(cmd.measurements, cmd.workloads);
  const DeviceRegistry devices = DeviceRegistry::with_builtins();
  const DeviceProfile& device = mig_device(devices, cmd.device);
  nlohmann::json params = nlohmann::json::object();
  if (!cmd.calibration.empty()) params["calibration"] = cmd.calibration;
  const MigSpeedParams speed = mig_speed_params_from(params, "--calibration");
  if (!cmd.calibration.empty()) {
    const std::string warning = calibration_device_warning(
        cmd.calibration, calibration_device(cmd.calibration), device.name, "--calibration");
    if (!warning.empty()) err << warning << "\n";
  }
  const std::vector<double> predicted = predict_mig_speeds(data, device, speed);
  const MigProfile& reference = mig_reference_profile(device);
  const bool csv = cmd.format == "csv";
  std::ostringstream text;
  text << std::fixed << std::setprecision(4);
  const std::string calibration =
      cmd.calibration.empty() ? "none (the mig model's built-in defaults)" : cmd.calibration;
  text << (csv ? "# " : "") << "calibration: " << calibration << "\n";
  text << (csv ? "# " : "") << "speed model: fitted, width_base " << speed.width_base
       << ", width_per_bandwidth " << speed.width_per_bandwidth << "; device " << device.name
       << ", speeds relative to " << reference.name << " (its rows not in the MAE)\n";
  if (csv) {
    text << "line,workload,batch,profile,sm_util,mem_bw_util,measured,predicted,error\n";
  } else {
    text << std::left << std::setw(6) << "line" << std::setw(18) << "workload/batch"
         << std::setw(10) << "profile" << std::right << std::setw(8) << "sm_util" << std::setw(8)
         << "mem_bw" << std::setw(10) << "measured" << std::setw(10) << "predicted" << std::setw(9)
         << "error"
         << "\n";
  }
  for (std::size_t i = 0; i < data.rows.size(); ++i) {
    const MigSpeedRow& r = data.rows[i];
    const MigWorkload& w = data.workloads[static_cast<std::size_t>(r.workload_index)];
    const double e = predicted[i] - r.speed;
    if (csv) {
      text << r.line << "," << r.workload << "," << r.batch << "," << r.profile << "," << w.sm_util
           << "," << w.mem_bw_util << "," << r.speed << "," << predicted[i] << "," << e << "\n";
    } else {
      text << std::left << std::setw(6) << r.line << std::setw(18) << workload_name(r)
           << std::setw(10) << r.profile << std::right << std::setw(8) << w.sm_util << std::setw(8)
           << w.mem_bw_util << std::setw(10) << r.speed << std::setw(10) << predicted[i]
           << std::setw(9) << e << "\n";
    }
  }
  for (const std::string& family : mig_speed_families(data)) {
    const MigSpeedError e = mig_speed_error(data, device, predicted, family);
    text << (csv ? "# " : "") << "family " << family << ": " << e.rows << " rows, MAE " << e.mae
         << ", max " << e.max << "\n";
  }
  const MigSpeedError all = mig_speed_error(data, device, predicted);
  text << "MAE " << all.mae << "\n";
  out << text.str();
  return 0;
}

}  // namespace

void configure_calibrate_fit(CLI::App& sub, CalibrateFitCommand& cmd) {
  sub.add_option("measurements", cmd.measurements,
                 "measured overlap CSV (gpumux-probe output, or ../shared/data/h200/"
                 "overlap_train.csv)")
      ->required();
  sub.add_option("-o,--out", cmd.out_json, "calibration file to write (JSON)")->required();
  sub.add_option("--mode", cmd.mode,
                 "fit only this mode: timeslice or mps (default: every mode in the file), or mig "
                 "(MEASUREMENTS are job speeds on MIG profiles, with --workloads)")
      ->check(CLI::IsMember(older_form_modes()));
  sub.add_option("--workloads", cmd.workloads,
                 "--mode mig: workloads CSV (workload, batch, sm_util_pct, mem_bw_util_pct on the "
                 "whole GPU; ../shared/data/miso-a100-mig/workloads.csv)");
  sub.add_option("--device", cmd.device, "--mode mig: the device measured (default A100-40GB)");
}

void configure_calibrate_check(CLI::App& sub, CalibrateCheckCommand& cmd) {
  sub.add_option("measurements", cmd.measurements, "measured overlap CSV")->required();
  sub.add_option(
      "--calibration", cmd.calibration,
      "calibration file from `gpumux calibrate overlap fit` (default: the models' defaults "
      "for each row's device)");
  sub.add_option("--mode", cmd.mode,
                 "check only this mode: timeslice or mps, or mig (MEASUREMENTS are job speeds on "
                 "MIG profiles, with --workloads)")
      ->check(CLI::IsMember(older_form_modes()));
  sub.add_option("--workloads", cmd.workloads,
                 "--mode mig: workloads CSV (workload, batch, sm_util_pct, mem_bw_util_pct)");
  sub.add_option("--device", cmd.device, "--mode mig: the device measured (default A100-40GB)");
  sub.add_option("--format", cmd.format, "table (default) or csv")
      ->check(CLI::IsMember({"table", "csv"}));
}

void configure_overlap_fit(CLI::App& sub, CalibrateFitCommand& cmd) {
  sub.add_option("measurements", cmd.measurements,
                 "measured overlap CSV (gpumux-probe output, or ../shared/data/h200/"
                 "overlap_train.csv)")
      ->required();
  sub.add_option("-o,--out", cmd.out_json, "calibration file to write (JSON)")->required();
  sub.add_option("--mode", cmd.mode,
                 "fit only this mode: timeslice or mps (default: every mode in the file)")
      ->check(CLI::IsMember(contention_model_names()));
}

void configure_overlap_check(CLI::App& sub, CalibrateCheckCommand& cmd) {
  sub.add_option("measurements", cmd.measurements, "measured overlap CSV")->required();
  sub.add_option("--calibration", cmd.calibration,
                 "calibration file from `gpumux calibrate overlap fit` (default: the models' "
                 "defaults for each row's device)");
  sub.add_option("--mode", cmd.mode, "check only this mode: timeslice or mps")
      ->check(CLI::IsMember(contention_model_names()));
  sub.add_option("--format", cmd.format, "table (default) or csv")
      ->check(CLI::IsMember({"table", "csv"}));
}

void configure_mig_speeds_fit(CLI::App& sub, CalibrateFitCommand& cmd) {
  cmd.mode = mig_speeds_model();
  sub.add_option("speeds", cmd.measurements,
                 "measured job speeds on MIG profiles (../shared/data/miso-a100-mig/"
                 "mig_speeds_train.csv)")
      ->required();
  sub.add_option("--workloads", cmd.workloads,
                 "workloads CSV (workload, batch, sm_util_pct, mem_bw_util_pct on the whole GPU; "
                 "../shared/data/miso-a100-mig/workloads.csv)")
      ->required();
  sub.add_option("-o,--out", cmd.out_json, "calibration file to write (JSON)")->required();
  sub.add_option("--device", cmd.device, "the device measured (default A100-40GB)");
}

void configure_mig_speeds_check(CLI::App& sub, CalibrateCheckCommand& cmd) {
  cmd.mode = mig_speeds_model();
  sub.add_option("speeds", cmd.measurements, "measured job speeds on MIG profiles")->required();
  sub.add_option("--workloads", cmd.workloads,
                 "workloads CSV (workload, batch, sm_util_pct, mem_bw_util_pct)")
      ->required();
  sub.add_option("--calibration", cmd.calibration,
                 "calibration file from `gpumux calibrate mig-speeds fit` (default: the mig "
                 "model's built-in defaults)");
  sub.add_option("--device", cmd.device, "the device measured (default A100-40GB)");
  sub.add_option("--format", cmd.format, "table (default) or csv")
      ->check(CLI::IsMember({"table", "csv"}));
}

int run_calibrate_fit(const CalibrateFitCommand& cmd, std::ostream& out, std::ostream& err) {
  try {
    check_mig_options(cmd.mode, cmd.workloads, cmd.device);
    if (is_mig_speeds(cmd.mode)) return run_mig_fit(cmd, out);
    const OverlapData data = read_overlap_csv(cmd.measurements);
    const DeviceRegistry devices = DeviceRegistry::with_builtins();
    std::vector<OverlapFit> fits;
    for (const std::string& mode : modes_to_use(data, cmd.mode)) {
      fits.push_back(fit_overlap(data, mode, devices));
    }
    const std::string command = "gpumux calibrate fit " + cmd.measurements + " -o " + cmd.out_json +
                                (cmd.mode.empty() ? "" : " --mode " + cmd.mode);
    AtomicFile file(cmd.out_json);
    file.stream() << calibration_json(data, fits, command).dump(2) << "\n";
    file.commit();
    out << std::setprecision(4);
    out << "measurements: " << data.file << " (" << data.rows.size() << " rows, "
        << data.sets.size() << " sets, device " << data.rows.front().device << ")\n";
    for (const OverlapFit& f : fits) {
      out << f.mode << ": " << f.after.rows << " rows; fitted";
      for (const auto& [key, value] : f.params.items())
        out << " " << key << "=" << value.get<double>();
      out << "\n  residuals: MAE " << f.after.mae << " (model defaults: " << f.before.mae
          << "), RMS " << f.after.rms << ", max " << f.after.max;
      if (f.after.worst_row >= 0) {
        out << " at " << row_name(data.rows[static_cast<std::size_t>(f.after.worst_row)]);
      }
      out << "\n";
      for (const std::string& note : f.notes) out << "  note: " << note << "\n";
    }
    out << "wrote " << cmd.out_json << "\n";
    return 0;
  } catch (const InputError& e) {
    err << "error: " << terminal_text(e.what()) << "\n";
    return 2;
  }
}

int run_calibrate_check(const CalibrateCheckCommand& cmd, std::ostream& out, std::ostream& err) {
  try {
    check_mig_options(cmd.mode, cmd.workloads, cmd.device);
    if (is_mig_speeds(cmd.mode)) return run_mig_check(cmd, out, err);
    const OverlapData data = read_overlap_csv(cmd.measurements);
    const DeviceRegistry devices = DeviceRegistry::with_builtins();
    nlohmann::json params = nlohmann::json::object();
    if (!cmd.calibration.empty()) params["calibration"] = cmd.calibration;
    if (!cmd.calibration.empty()) {
      // Each device the measurements were taken on, in the order of first appearance.
      const std::string measured = calibration_device(cmd.calibration);
      std::vector<std::string> seen;
      for (const OverlapRow& r : data.rows) {
        if (std::find(seen.begin(), seen.end(), r.device) != seen.end()) continue;
        seen.push_back(r.device);
        const std::string warning =
            calibration_device_warning(cmd.calibration, measured, r.device, "--calibration");
        if (!warning.empty()) {
          err << warning << " (" << data.file << ":" << r.line << ")\n";
        }
      }
    }
    std::vector<double> predicted(data.rows.size(), std::nan(""));
    std::vector<std::pair<std::string, OverlapError>> per_mode;
    for (const std::string& mode : modes_to_use(data, cmd.mode)) {
      const std::vector<double> p = predict_overlap(data, mode, params, devices);
      for (std::size_t i = 0; i < p.size(); ++i) {
        if (!std::isnan(p[i])) predicted[i] = p[i];
      }
      per_mode.emplace_back(mode, overlap_error(data, p));
    }
    const bool csv = cmd.format == "csv";
    std::ostringstream text;
    text << std::fixed << std::setprecision(4);
    const std::string calibration =
        cmd.calibration.empty() ? "none (the models' defaults for each device)" : cmd.calibration;
    if (csv) {
      text << "# calibration: " << calibration << "\n";
      text << "line,mode,set,member,sm_share,kernel_us,duty,active_thread_pct,measured,predicted,"
              "error\n";
    } else {
      text << "calibration: " << calibration << "\n";
      text << std::left << std::setw(6) << "line" << std::setw(10) << "mode" << std::setw(20)
           << "set/member" << std::right << std::setw(9) << "sm_share" << std::setw(10)
           << "kernel_us" << std::setw(6) << "duty" << std::setw(5) << "atp" << std::setw(10)
           << "measured" << std::setw(10) << "predicted" << std::setw(9) << "error"
           << "\n";
    }
    for (std::size_t i = 0; i < data.rows.size(); ++i) {
      if (std::isnan(predicted[i])) continue;
      const OverlapRow& r = data.rows[i];
      const double e = predicted[i] - r.speed;
      if (csv) {
        text << r.line << "," << r.mode << "," << r.set << "," << r.member << "," << r.sm_share
             << "," << r.kernel_us << "," << r.duty << "," << r.active_thread_pct << "," << r.speed
             << "," << predicted[i] << "," << e << "\n";
      } else {
        text << std::left << std::setw(6) << r.line << std::setw(10) << r.mode << std::setw(20)
             << row_name(r) << std::right << std::setw(9) << std::setprecision(3) << r.sm_share
             << std::setw(10) << std::setprecision(0) << r.kernel_us << std::setw(6)
             << std::setprecision(2) << r.duty << std::setw(5) << std::setprecision(0)
             << r.active_thread_pct << std::setprecision(4) << std::setw(10) << r.speed
             << std::setw(10) << predicted[i] << std::setw(9) << e << "\n";
      }
    }
    double sum = 0.0;
    int rows = 0;
    for (const auto& [mode, e] : per_mode) {
      text << (csv ? "# " : "") << "mode " << mode << ": " << e.rows << " rows, MAE " << e.mae
           << ", max " << e.max << "\n";
      sum += e.mae * e.rows;
      rows += e.rows;
    }
    text << "MAE " << (rows > 0 ? sum / rows : 0.0) << "\n";
    out << text.str();
    return 0;
  } catch (const InputError& e) {
    err << "error: " << terminal_text(e.what()) << "\n";
    return 2;
  }
}

}  // namespace gpumux::calibration
