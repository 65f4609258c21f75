#include "calibrate/overlap/overlap_fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <sstream>

#include "calibrate/overlap/least_squares.h"
#include "models/registry.h"

namespace gpumux::calibration {

namespace {

std::string format_number(double v) {
  std::ostringstream s;
  s.precision(4);
  s << v;
  return s.str();
}

}  // namespace

OverlapFit fit_overlap(const OverlapData& data, const std::string& mode,
                       const DeviceRegistry& devices) {
  OverlapFit fit;
  fit.mode = mode;
  std::vector<int> rows;
  for (std::size_t i = 0; i < data.rows.size(); ++i) {
    if (data.rows[i].mode == mode) rows.push_back(static_cast<int>(i));
  }
  fit.before = overlap_error(data, predict_overlap(data, mode, nlohmann::json::object(), devices));

  // Launch gap: from rows at duty 1, where alone_duty = k / (k + gap).
  std::vector<double> gaps;
  for (int i : rows) {
    const OverlapRow& r = data.rows[static_cast<std::size_t>(i)];
    if (r.duty >= 1.0 && r.active_thread_pct >= 100.0) {
      gaps.push_back(r.kernel_us * (1.0 - r.alone_duty) / r.alone_duty);
    }
  }
  std::optional<double> launch_gap;
  if (!gaps.empty()) {
    std::sort(gaps.begin(), gaps.end());
    launch_gap = gaps[gaps.size() / 2];
  } else {
    fit.notes.push_back("launch_gap_us not identified: no row at duty 1 without a thread cap");
  }

  auto residuals_for = [&](const nlohmann::json& params) {
    const std::vector<double> p = predict_overlap(data, mode, params, devices);
    Eigen::VectorXd r(static_cast<Eigen::Index>(rows.size()));
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const std::size_t i = static_cast<std::size_t>(rows[k]);
      r[static_cast<Eigen::Index>(k)] = p[i] - data.rows[i].speed;
    }
    return r;
  };

  nlohmann::json best;
  double best_cost = 1e300;
  const ContentionForm form =
      contention_model(mode, data.file, "mode").capabilities.contention_form;
  if (form == ContentionForm::kTimeSlicing) {
    // Slice candidates: the driver default and every kernel length measured.
    std::set<double> slices{1024.0};
    double longest = 0.0;
    for (int i : rows) {
      slices.insert(data.rows[static_cast<std::size_t>(i)].kernel_us);
      longest = std::max(longest, data.rows[static_cast<std::size_t>(i)].kernel_us);
    }
    for (double slice : slices) {
      auto params_of = [&](const Eigen::VectorXd& x) {
        return nlohmann::json{{"switch_cost_us", x[0]},
                              {"interference", x[1]},
                              {"time_slice_us", slice},
                              {"launch_gap_us", launch_gap.value_or(0.0)}};
      };
      auto f = [&](const Eigen::VectorXd& x) { return residuals_for(params_of(x)); };
      for (double start : {50.0, 150.0, 400.0}) {
        Eigen::VectorXd x0(2);
        x0 << start, 0.0;
        const Eigen::VectorXd x = least_squares(f, x0, {{0.0, 1e4}, {0.0, 1.0}});
        const double cost = f(x).squaredNorm();
        // Ties (slices that preempt nothing) go to the shorter slice: the identified bound.
        if (cost < best_cost * (1.0 - 1e-9)) {
          best_cost = cost;
          best = params_of(x);
        }
      }
    }
    const double slice = best["time_slice_us"].get<double>();
    if (slice >= longest) {
      fit.notes.push_back("time_slice_us " + format_number(slice) +
                          " is a lower bound: no measured kernel was preempted (" +
                          format_number(longest) + " us the longest), longer slices fit alike");
    }
  } else {
    auto params_of = [&](const Eigen::VectorXd& x) {
      return nlohmann::json{{"interference", x[0]}, {"launch_gap_us", launch_gap.value_or(0.0)}};
    };
    auto f = [&](const Eigen::VectorXd& x) { return residuals_for(params_of(x)); };
    for (double start : {0.0, 0.2, 1.0}) {
      Eigen::VectorXd x0(1);
      x0 << start;
      const Eigen::VectorXd x = least_squares(f, x0, {{0.0, 5.0}});
      const double cost = f(x).squaredNorm();
      if (cost < best_cost * (1.0 - 1e-9)) {
        best_cost = cost;
        best = params_of(x);
      }
    }
  }
  if (!launch_gap) best.erase("launch_gap_us");
  fit.params = best;
  fit.after = overlap_error(data, predict_overlap(data, mode, best, devices));
  return fit;
}

nlohmann::json calibration_json(const OverlapData& data, const std::vector<OverlapFit>& fits,
                                const std::string& command) {
  nlohmann::json j;
  j["format"] = "gpumux-calibration";
  j["version"] = 1;
  j["device"] = data.rows.front().device;
  j["measurements"] = data.file;
  j["command"] = command;
  j["source"] =
      "least-squares fit (Levenberg-Marquardt) of the sharing models to measured "
      "kernel overlap";
  j["models"] = nlohmann::json::object();
  for (const OverlapFit& f : fits) {
    j["models"][f.mode] = {{"params", f.params},
                           {"rows", f.after.rows},
                           {"residuals",
                            {{"mae", f.after.mae},
                             {"rms", f.after.rms},
                             {"max", f.after.max},
                             {"defaults_mae", f.before.mae}}},
                           {"notes", f.notes}};
  }
  return j;
}

}  // namespace gpumux::calibration
