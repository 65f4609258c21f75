#include "calibrate/overlap/least_squares.h"

#include <algorithm>
#include <cmath>

namespace gpumux::calibration {

Eigen::VectorXd least_squares(const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f,
                              Eigen::VectorXd x, const std::vector<Bounds>& bounds) {
  const Eigen::Index n = x.size();
  auto project = [&](Eigen::VectorXd& v) {
    for (Eigen::Index i = 0; i < n; ++i) {
      v[i] = std::clamp(v[i], bounds[static_cast<std::size_t>(i)].lo,
                        bounds[static_cast<std::size_t>(i)].hi);
    }
  };
  project(x);
  Eigen::VectorXd r = f(x);
  double cost = r.squaredNorm();
  double lambda = 1e-3;
  for (int it = 0; it < 60; ++it) {
    Eigen::MatrixXd jac(r.size(), n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const Bounds& b = bounds[static_cast<std::size_t>(i)];
      double h = 1e-4 * std::max(1.0, std::abs(x[i]));
      Eigen::VectorXd xh = x;
      xh[i] = x[i] + h <= b.hi ? x[i] + h : x[i] - h;
      if (xh[i] < x[i]) h = -h;
      jac.col(i) = (f(xh) - r) / h;
    }
    const Eigen::MatrixXd a = jac.transpose() * jac;
    const Eigen::VectorXd g = jac.transpose() * r;
    bool improved = false;
    for (int tries = 0; tries < 12 && !improved; ++tries) {
      Eigen::MatrixXd damped = a;
      damped.diagonal() += lambda * (a.diagonal().array() + 1e-12).matrix();
      Eigen::VectorXd step = damped.ldlt().solve(-g);
      Eigen::VectorXd next = x + step;
      project(next);
      const Eigen::VectorXd rn = f(next);
      const double cn = rn.squaredNorm();
      if (cn < cost) {
        improved = (cost - cn) > 1e-14 * std::max(1.0, cost);
        x = next;
        r = rn;
        cost = cn;
        lambda = std::max(1e-9, lambda / 3.0);
        if (!improved) return x;
      } else {
        lambda *= 4.0;
      }
    }
    if (!improved) break;
  }
  return x;
}

}  // namespace gpumux::calibration
