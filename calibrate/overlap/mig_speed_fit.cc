#include "calibrate/overlap/mig_speed_fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "calibrate/overlap/least_squares.h"
#include "models/mig/layout.h"
#include "models/mig/mig_params.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"

namespace gpumux::calibration {

namespace {

JobSpec job_of(const MigWorkload& w) {
  JobSpec j;
  j.sm_util = w.sm_util;
  j.mem_bw_util = w.mem_bw_util;
  j.sm_share = 1.0;  // not measured: the trace default
  return j;
}

bool counted(const MigSpeedData& data, std::size_t i, const MigProfile& reference,
             const std::string& family) {
  const MigSpeedRow& r = data.rows[i];
  return r.profile != reference.name && (family.empty() || r.workload == family);
}

// Fits width_base, width_per_bandwidth on the counted rows whose family is not `left_out`.
MigSpeedParams fit_on(const MigSpeedData& data, const DeviceProfile& device,
                      const std::string& left_out) {
  const MigProfile& reference = mig_reference_profile(device);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < data.rows.size(); ++i) {
    if (counted(data, i, reference, "") && data.rows[i].workload != left_out) rows.push_back(i);
  }
  auto params_of = [](const Eigen::VectorXd& x) {
    MigSpeedParams p;
    p.width_base = x[0];
    p.width_per_bandwidth = x[1];
    return p;
  };
  auto f = [&](const Eigen::VectorXd& x) {
    const std::vector<double> p = predict_mig_speeds(data, device, params_of(x));
    Eigen::VectorXd r(static_cast<Eigen::Index>(rows.size()));
    for (std::size_t k = 0; k < rows.size(); ++k) {
      r[static_cast<Eigen::Index>(k)] = p[rows[k]] - data.rows[rows[k]].speed;
    }
    return r;
  };
  MigSpeedParams best;
  double best_cost = 1e300;
  for (const auto& [base, per_bandwidth] : {std::pair{0.5, 0.5}, {0.2, 1.0}, {0.9, 0.1}}) {
    Eigen::VectorXd x0(2);
    x0 << base, per_bandwidth;
    const Eigen::VectorXd x = least_squares(f, x0, {{0.0, 1.0}, {0.0, 10.0}});
    const double cost = f(x).squaredNorm();
    if (cost < best_cost * (1.0 - 1e-12)) {
      best_cost = cost;
      best = params_of(x);
    }
  }
  return best;
}

}  // namespace

MigSpeedParams mig_speed_params_from(const nlohmann::json& params, const std::string& where) {
  JsonObject p(params, where, "");
  std::vector<ModelParameter> echo;
  const MigSpeedParams out = read_mig_speed_params(p, echo);
  p.finish();
  return out;
}

const MigProfile& mig_reference_profile(const DeviceProfile& device) {
  if (device.mig_profiles.empty()) {
    throw InputError(device.name, "device", "has no MIG profiles");
  }
  const MigProfile* best = &device.mig_profiles.front();
  for (const MigProfile& p : device.mig_profiles) {
    if (std::pair(p.compute_slices, p.memory) > std::pair(best->compute_slices, best->memory)) {
      best = &p;
    }
  }
  return *best;
}

std::vector<double> predict_mig_speeds(const MigSpeedData& data, const DeviceProfile& device,
                                       const MigSpeedParams& params) {
  const MigProfile& reference = mig_reference_profile(device);
  std::vector<double> out;
  out.reserve(data.rows.size());
  for (const MigSpeedRow& r : data.rows) {
    const MigProfile* p = find_mig_profile(device, r.profile);
    if (p == nullptr) {
      throw InputError(data.speeds_file + ":" + std::to_string(r.line), "profile",
                       "'" + r.profile + "' is not a MIG profile of " + device.name);
    }
    const JobSpec j = job_of(data.workloads[static_cast<std::size_t>(r.workload_index)]);
    out.push_back(mig_instance_rate(j, device, *p, params) /
                  mig_instance_rate(j, device, reference, params));
  }
  return out;
}

MigSpeedError mig_speed_error(const MigSpeedData& data, const DeviceProfile& device,
                              const std::vector<double>& predicted, const std::string& family) {
  const MigProfile& reference = mig_reference_profile(device);
  MigSpeedError e;
  double sum = 0.0, squares = 0.0;
  for (std::size_t i = 0; i < data.rows.size(); ++i) {
    if (!counted(data, i, reference, family)) continue;
    const double a = std::abs(predicted[i] - data.rows[i].speed);
    sum += a;
    squares += a * a;
    ++e.rows;
    if (a > e.max || e.worst_row < 0) {
      e.max = a;
      e.worst_row = static_cast<int>(i);
    }
  }
  if (e.rows > 0) {
    e.mae = sum / e.rows;
    e.rms = std::sqrt(squares / e.rows);
  }
  return e;
}

MigSpeedFit fit_mig_speeds(const MigSpeedData& data, const DeviceProfile& device) {
  MigSpeedFit fit;
  const auto error = [&](const MigSpeedParams& p, const std::string& family = {}) {
    return mig_speed_error(data, device, predict_mig_speeds(data, device, p), family);
  };
  fit.defaults = error(MigSpeedParams{});
  fit.roofline = error(MigSpeedParams{MigSpeedModel::kRoofline});
  MigSpeedParams wide;
  wide.width_base = 1.0;
  wide.width_per_bandwidth = 0.0;
  fit.duty_cycle = error(wide);
  if (fit.defaults.rows == 0) {
    throw InputError(data.speeds_file, "profile",
                     "no row on a profile other than " + mig_reference_profile(device).name +
                         ": nothing to fit");
  }
  fit.params = fit_on(data, device, "");
  fit.after = error(fit.params);
  const std::vector<std::string> families = mig_speed_families(data);
  if (families.size() >= 2) {
    double sum = 0.0;
    int rows = 0;
    for (const std::string& family : families) {
      MigSpeedFold fold;
      fold.family = family;
      fold.params = fit_on(data, device, family);
      fold.error = error(fold.params, family);
      if (fold.error.rows == 0) continue;
      sum += fold.error.mae * fold.error.rows;
      rows += fold.error.rows;
      fit.folds.push_back(std::move(fold));
    }
    fit.cv_mae = rows > 0 ? sum / rows : 0.0;
  } else {
    fit.notes.push_back("one family only: no cross-validation by family");
  }
  if (fit.params.width_base >= 1.0 - 1e-9) {
    fit.notes.push_back("width_base at its bound 1: every kernel as wide as the GPU fits best");
  }
  return fit;
}

nlohmann::json mig_calibration_json(const MigSpeedData& data, const DeviceProfile& device,
                                    const MigSpeedFit& fit, const std::string& command) {
  nlohmann::json j;
  j["format"] = "gpumux-calibration";
  j["version"] = 1;
  j["device"] = device.name;
  j["measurements"] = data.speeds_file + " (workloads " + data.workloads_file + ")";
  j["command"] = command;
  j["source"] =
      "least-squares fit (Levenberg-Marquardt) of the mig job-speed model to measured "
      "speeds on MIG profiles";
  nlohmann::json folds = nlohmann::json::array();
  for (const MigSpeedFold& f : fit.folds) {
    folds.push_back({{"family", f.family},
                     {"rows", f.error.rows},
                     {"mae", f.error.mae},
                     {"params",
                      {{"width_base", f.params.width_base},
                       {"width_per_bandwidth", f.params.width_per_bandwidth}}}});
  }
  j["models"]["mig"] = {
      {"params",
       {{"width_base", fit.params.width_base},
        {"width_per_bandwidth", fit.params.width_per_bandwidth}}},
      {"rows", fit.after.rows},
      {"mapping",
       "sm_util = sm_util_pct / 100, mem_bw_util = mem_bw_util_pct / 100, sm_share = 1 (not "
       "measured); speed relative to " +
           mig_reference_profile(device).name},
      {"residuals",
       {{"mae", fit.after.mae},
        {"rms", fit.after.rms},
        {"max", fit.after.max},
        {"defaults_mae", fit.defaults.mae},
        {"roofline_mae", fit.roofline.mae},
        {"duty_cycle_mae", fit.duty_cycle.mae}}},
      {"cross_validation", {{"by", "family"}, {"mae", fit.cv_mae}, {"folds", folds}}},
      {"notes", fit.notes}};
  return j;
}

}  // namespace gpumux::calibration
