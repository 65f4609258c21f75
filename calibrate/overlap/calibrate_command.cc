#include "calibrate/overlap/calibrate_command.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "sim/base/atomic_file.h"
#include "calibrate/overlap/overlap_fit.h"
#include "calibrate/overlap/overlap_predict.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

std::vector<std::string> modes_to_use(const OverlapData& data, const std::string& mode) {
  const std::vector<std::string> present = overlap_modes(data);
  if (mode.empty()) return present;
  if (std::find(present.begin(), present.end(), mode) == present.end()) {
    throw InputError(data.file, "mode", "no rows of mode '" + mode + "' in the measurements");
  }
  return {mode};
}

std::string row_name(const OverlapRow& r) { return r.set + "/" + std::to_string(r.member); }

}  // namespace

void configure_calibrate_fit(CLI::App& sub, CalibrateFitCommand& cmd) {
  sub.add_option("measurements", cmd.measurements,
                 "measured overlap CSV (gpumux-probe output, or ../shared/data/h200/"
                 "overlap_train.csv)")
      ->required();
  sub.add_option("-o,--out", cmd.out_json, "calibration file to write (JSON)")->required();
  sub.add_option("--mode", cmd.mode, "fit only this mode: timeslice or mps (default: every mode "
                                     "in the file)")
      ->check(CLI::IsMember({"timeslice", "mps"}));
}

void configure_calibrate_check(CLI::App& sub, CalibrateCheckCommand& cmd) {
  sub.add_option("measurements", cmd.measurements, "measured overlap CSV")->required();
  sub.add_option("--calibration", cmd.calibration,
                 "calibration file from `gpumux calibrate fit` (default: the models' defaults "
                 "for each row's device)");
  sub.add_option("--mode", cmd.mode, "check only this mode: timeslice or mps")
      ->check(CLI::IsMember({"timeslice", "mps"}));
  sub.add_option("--format", cmd.format, "table (default) or csv")
      ->check(CLI::IsMember({"table", "csv"}));
}

int run_calibrate_fit(const CalibrateFitCommand& cmd, std::ostream& out, std::ostream& err) {
  try {
    const OverlapData data = read_overlap_csv(cmd.measurements);
    const DeviceRegistry devices = DeviceRegistry::with_builtins();
    std::vector<OverlapFit> fits;
    for (const std::string& mode : modes_to_use(data, cmd.mode)) {
      fits.push_back(fit_overlap(data, mode, devices));
    }
    const std::string command = "gpumux calibrate fit " + cmd.measurements + " -o " +
                                cmd.out_json + (cmd.mode.empty() ? "" : " --mode " + cmd.mode);
    AtomicFile file(cmd.out_json);
    file.stream() << calibration_json(data, fits, command).dump(2) << "\n";
    file.commit();
    out << std::setprecision(4);
    out << "measurements: " << data.file << " (" << data.rows.size() << " rows, "
        << data.sets.size() << " sets, device " << data.rows.front().device << ")\n";
    for (const OverlapFit& f : fits) {
      out << f.mode << ": " << f.after.rows << " rows; fitted";
      for (const auto& [key, value] : f.params.items()) out << " " << key << "=" << value.get<double>();
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
    err << "error: " << e.what() << "\n";
    return 2;
  }
}

int run_calibrate_check(const CalibrateCheckCommand& cmd, std::ostream& out, std::ostream& err) {
  try {
    const OverlapData data = read_overlap_csv(cmd.measurements);
    const DeviceRegistry devices = DeviceRegistry::with_builtins();
    nlohmann::json params = nlohmann::json::object();
    if (!cmd.calibration.empty()) params["calibration"] = cmd.calibration;
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
           << "measured" << std::setw(10) << "predicted" << std::setw(9) << "error" << "\n";
    }
    for (std::size_t i = 0; i < data.rows.size(); ++i) {
      if (std::isnan(predicted[i])) continue;
      const OverlapRow& r = data.rows[i];
      const double e = predicted[i] - r.speed;
      if (csv) {
        text << r.line << "," << r.mode << "," << r.set << "," << r.member << "," << r.sm_share
             << "," << r.kernel_us << "," << r.duty << "," << r.active_thread_pct << ","
             << r.speed << "," << predicted[i] << "," << e << "\n";
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
    err << "error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace gpumux
