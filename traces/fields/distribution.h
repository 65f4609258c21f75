// A value drawn from a documented distribution, described in JSON:
//   3.5                                          a constant
//   {"uniform": [lo, hi]}                        uniform on [lo, hi]
//   {"lognormal": {"median": m, "sigma": s}}     exp(N(ln m, s))
//   {"exponential": {"mean": m}}
//   {"choice": [v1, v2, ...], "weights": [w1, w2, ...]}   weights optional (equal)
// Any of the object forms may add "min" and/or "max" to clamp the draw.
// Used by the synthetic generator and for trace columns a trace lacks (scenario trace.defaults).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/base/json_fields.h"
#include "sim/base/rng.h"

namespace gpumux {

class Distribution {
 public:
  Distribution() = default;
  static Distribution constant(double value);

  // Parses `value` found in `file` at JSON `pointer` (the key `field`); checks every draw can
  // lie in [min_allowed, max_allowed] (after clamping). Throws InputError naming the place.
  static Distribution parse(const nlohmann::json& value, const std::string& file,
                            const std::string& pointer, const std::string& field,
                            double min_allowed, double max_allowed);

  double draw(Rng& rng) const;
  bool is_constant() const { return kind_ == Kind::kConstant; }
  // The values a constant or a choice can draw (before clamping); empty for the continuous
  // kinds.
  std::vector<double> discrete_values() const {
    if (kind_ == Kind::kConstant) return {a_};
    if (kind_ == Kind::kChoice) return values_;
    return {};
  }
  double mean_hint() const;  // the constant, or a representative value for messages
  nlohmann::json to_json() const { return description_; }

 private:
  enum class Kind { kConstant, kUniform, kLognormal, kExponential, kChoice };
  Kind kind_ = Kind::kConstant;
  double a_ = 0.0, b_ = 0.0;
  std::vector<double> values_;
  std::vector<double> cumulative_;
  double min_ = -1e300, max_ = 1e300;
  nlohmann::json description_;
};

}  // namespace gpumux
