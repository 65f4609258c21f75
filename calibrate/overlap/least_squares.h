// Bounded nonlinear least squares for the calibration fits: Levenberg-Marquardt on residuals(x)
// with a forward-difference Jacobian, x kept inside `bounds` by projection. Deterministic (no
// random starts): callers run it from a few fixed starting points and keep the best.
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <vector>

namespace gpumux::calibration {

struct Bounds {
  double lo, hi;
};

// The best x seen (at most 60 iterations).
Eigen::VectorXd least_squares(const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f,
                              Eigen::VectorXd x, const std::vector<Bounds>& bounds);

}  // namespace gpumux::calibration
