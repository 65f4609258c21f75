// Per-config co-location factors: what a config's own measured pairs say beyond its solo facts.
//
// The fitted rate models (colocation_model.h) see a config only through its solo utilization;
// on Lucid's pairs their error is per config (VGG slowed far less than its utilization says,
// ResNet18 and MobileNetV2 more; bench/validation/timeslice/RESULTS.md section 3b), and no solo
// fact the data carries separates those configs. These factors calibrate each config from the
// pairs it was measured in, on top of the model's physics:
//     slowdown_i = (1 / rate_i - 1) * exp(sensitivity_i + pressure_j),  rate_i' = 1 / (1 +
//     slowdown_i)
// for job i beside job j: sensitivity_i scales how much i suffers from any co-runner, pressure_j
// how much j makes any co-runner suffer. The result stays in (0, 1] and is the model's rate
// where the model predicts no slowdown. A config with no factor (never in a training pair, e.g.
// a new job type) keeps factors 0, i.e. the model's own prediction.
//
// Fit: least squares on the pairs with a ridge penalty ridge * sum(factor^2) (Gaussian prior of
// standard deviation 1 on each log factor, ridge = the base fit's residual variance; so a config
// seen in few pairs stays near the model), by Levenberg-Marquardt with the model's parameters
// held at their fit. The ridge rule is fixed, not tuned on held-out pairs.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/colocation/colocation_data.h"

namespace gpumux::calibration {

struct ConfigFactor {
  double sensitivity = 0.0;  // natural log of the factor on this config's own slowdown
  double pressure = 0.0;     // natural log of the factor on its co-runner's slowdown
};
using ConfigFactors = std::map<ConfigKey, ConfigFactor>;

// The rates of a pair (a beside b) with the factors applied. Preconditions: rates in (0, 1].
std::pair<double, double> apply_factors(std::pair<double, double> rates, const ConfigFactors& f,
                                        const ConfigKey& a, const ConfigKey& b);

// The ridge of the fixed rule above, from the base fit's root mean square residual.
inline double factor_ridge(double base_rms) { return base_rms * base_rms; }

// Fits a factor pair for every config in `pairs` (all matched) to their measured speeds, given
// each pair's rates under the model (`rates[k]` for `pairs[k]`, each in (0, 1]). ridge >= 0.
ConfigFactors fit_config_factors(const std::vector<const Pair*>& pairs,
                                 const std::vector<std::pair<double, double>>& rates, double ridge);

// [{"model", "dataset", "batchsize", "amp", "sensitivity", "pressure"}, ...] in key order.
nlohmann::json factors_to_json(const ConfigFactors& f);
// `where` is the JSON pointer of `j` ("file#/models/timeslice/config_factors"). Throws
// InputError(where + "/index/field", ...) for a missing or malformed field, a factor outside
// [-20, 20] or a config listed twice.
ConfigFactors factors_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace gpumux::calibration
