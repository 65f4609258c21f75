#include "calibrate/colocation/config_factors.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "sim/base/input_error.h"

namespace gpumux::calibration {
namespace {

constexpr double kMaxFactor = 20.0;  // |log factor| bound: e^20 is beyond any measured slowdown

// The slowdown 1 / rate - 1 of a model rate in (0, 1].
double slowdown(double rate) { return 1.0 / std::max(rate, 1e-12) - 1.0; }

}  // namespace

std::pair<double, double> apply_factors(std::pair<double, double> rates, const ConfigFactors& f,
                                        const ConfigKey& a, const ConfigKey& b) {
  const auto ia = f.find(a), ib = f.find(b);
  const ConfigFactor fa = ia == f.end() ? ConfigFactor{} : ia->second;
  const ConfigFactor fb = ib == f.end() ? ConfigFactor{} : ib->second;
  const double xa = slowdown(rates.first) * std::exp(fa.sensitivity + fb.pressure);
  const double xb = slowdown(rates.second) * std::exp(fb.sensitivity + fa.pressure);
  return {1.0 / (1.0 + xa), 1.0 / (1.0 + xb)};
}

ConfigFactors fit_config_factors(const std::vector<const Pair*>& pairs,
                                 const std::vector<std::pair<double, double>>& rates,
                                 double ridge) {
  // Parameters: [2c] = sensitivity, [2c + 1] = pressure of the c-th config in key order.
  std::map<ConfigKey, int> index;
  for (const Pair* p : pairs) index.emplace(p->key1, 0), index.emplace(p->key2, 0);
  int n = 0;
  for (auto& [key, i] : index) i = n++;
  const int params = 2 * n;
  struct Job {
    int sens, pres;   // parameter indices
    double base;      // the model's slowdown
    double measured;  // speed
  };
  std::vector<Job> jobs;
  jobs.reserve(2 * pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const int a = index.at(pairs[k]->key1), b = index.at(pairs[k]->key2);
    jobs.push_back({2 * a, 2 * b + 1, slowdown(rates[k].first), pairs[k]->speed1});
    jobs.push_back({2 * b, 2 * a + 1, slowdown(rates[k].second), pairs[k]->speed2});
  }
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(params);
  auto cost_of = [&](const Eigen::VectorXd& t) {
    double c = ridge * t.squaredNorm();
    for (const Job& j : jobs) {
      const double r = 1.0 / (1.0 + j.base * std::exp(t(j.sens) + t(j.pres))) - j.measured;
      c += r * r;
    }
    return c;
  };
  double cost = cost_of(theta);
  double damping = 1e-3;
  for (int it = 0; it < 100; ++it) {
    // Gauss-Newton normal equations; each job's residual depends on two parameters.
    Eigen::MatrixXd jtj = ridge * Eigen::MatrixXd::Identity(params, params);
    Eigen::VectorXd grad = ridge * theta;
    for (const Job& j : jobs) {
      const double x = j.base * std::exp(theta(j.sens) + theta(j.pres));
      const double r = 1.0 / (1.0 + x) - j.measured;
      const double g = -x / ((1.0 + x) * (1.0 + x));  // d residual / d either parameter
      jtj(j.sens, j.sens) += g * g, jtj(j.pres, j.pres) += g * g;
      jtj(j.sens, j.pres) += g * g, jtj(j.pres, j.sens) += g * g;
      grad(j.sens) += g * r, grad(j.pres) += g * r;
    }
    bool improved = false;
    double gain = 0.0;
    for (int tries = 0; tries < 12 && !improved; ++tries) {
      Eigen::MatrixXd a = jtj;
      a.diagonal() += damping * (jtj.diagonal().array() + 1e-12).matrix();
      const Eigen::VectorXd t =
          (theta + a.ldlt().solve(-grad)).cwiseMax(-kMaxFactor).cwiseMin(kMaxFactor);
      const double c = cost_of(t);
      if (c < cost) {
        improved = true, gain = cost - c;
        theta = t, cost = c;
        damping = std::max(1e-9, damping / 3.0);
      } else {
        damping *= 4.0;
      }
    }
    if (!improved || gain < 1e-10 * cost) break;
  }
  ConfigFactors out;
  for (const auto& [key, i] : index) out[key] = {theta(2 * i), theta(2 * i + 1)};
  return out;
}

nlohmann::json factors_to_json(const ConfigFactors& f) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [k, v] : f) {
    rows.push_back({{"model", k.model},
                    {"dataset", k.dataset},
                    {"batchsize", k.batchsize},
                    {"amp", k.amp},
                    {"sensitivity", v.sensitivity},
                    {"pressure", v.pressure}});
  }
  return rows;
}

ConfigFactors factors_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_array()) throw InputError(where, "config_factors", "expected an array");
  ConfigFactors out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string at = where + "/" + std::to_string(i);
    const nlohmann::json& row = j[i];
    if (!row.is_object()) throw InputError(at, "config_factors", "expected an object");
    auto field = [&](const char* name) -> const nlohmann::json& {
      if (!row.contains(name)) throw InputError(at + "/" + name, name, "missing");
      return row[name];
    };
    auto text = [&](const char* name) {
      const nlohmann::json& v = field(name);
      if (!v.is_string()) throw InputError(at + "/" + name, name, "expected a string");
      return v.get<std::string>();
    };
    auto integer = [&](const char* name, int lo, int hi) {
      const nlohmann::json& v = field(name);
      if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi) {
        throw InputError(
            at + "/" + name, name,
            "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      }
      return v.get<int>();
    };
    auto factor = [&](const char* name) {
      const nlohmann::json& v = field(name);
      if (!v.is_number() || !(std::abs(v.get<double>()) <= kMaxFactor)) {
        throw InputError(at + "/" + name, name, "expected a number in [-20, 20]");
      }
      return v.get<double>();
    };
    ConfigKey key{text("model"), text("dataset"), integer("batchsize", 0, 1 << 30),
                  integer("amp", 0, 1)};
    const ConfigFactor value{factor("sensitivity"), factor("pressure")};
    if (!out.emplace(std::move(key), value).second) {
      throw InputError(at, "config_factors", "config listed twice");
    }
  }
  return out;
}

}  // namespace gpumux::calibration
