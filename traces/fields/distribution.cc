#include "traces/fields/distribution.h"

#include <algorithm>
#include <cmath>

namespace gpumux {

namespace {

double number_at(const nlohmann::json& v, const std::string& where, const std::string& field) {
  if (!v.is_number()) {
    throw InputError(where, field, "expected a number, got " + describe_json(v));
  }
  return v.get<double>();
}

}  // namespace

Distribution Distribution::constant(double value) {
  Distribution d;
  d.kind_ = Kind::kConstant;
  d.a_ = value;
  d.description_ = value;
  return d;
}

Distribution Distribution::parse(const nlohmann::json& value, const std::string& file,
                                 const std::string& pointer, const std::string& field,
                                 double min_allowed, double max_allowed) {
  const std::string where = file + "#" + pointer;
  Distribution d;
  d.description_ = value;
  auto check_range = [&](double lo, double hi) {
    if (lo < min_allowed || hi > max_allowed || lo > hi) {
      throw InputError(where, field,
                       "values must lie in [" + std::to_string(min_allowed) + ", " +
                           std::to_string(max_allowed) + "]; this distribution spans [" +
                           std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
  };
  if (value.is_number()) {
    d.a_ = value.get<double>();
    check_range(d.a_, d.a_);
    return d;
  }
  JsonObject o(value, file, pointer);
  const std::string& w = where;
  const bool has_min = o.has("min"), has_max = o.has("max");
  d.min_ = o.optional_number("min", -1e300, -1e300, 1e300);
  d.max_ = o.optional_number("max", 1e300, -1e300, 1e300);
  if (o.has("uniform")) {
    const auto& u = o.raw("uniform");
    if (!u.is_array() || u.size() != 2) {
      throw InputError(w, field + ".uniform", "expected [lo, hi], got " + describe_json(u));
    }
    d.kind_ = Kind::kUniform;
    d.a_ = number_at(u[0], w, field);
    d.b_ = number_at(u[1], w, field);
    check_range(std::max(d.a_, d.min_), std::min(d.b_, d.max_));
  } else if (o.has("lognormal")) {
    JsonObject l = o.object("lognormal");
    d.kind_ = Kind::kLognormal;
    d.a_ = std::log(l.required_number("median", 1e-12, 1e300));
    d.b_ = l.required_number("sigma", 0.0, 20.0);
    l.finish();
    if (!has_min || !has_max) {
      if (min_allowed > 0 && !has_min) d.min_ = min_allowed;
      if (!has_max) d.max_ = max_allowed;
    }
    check_range(std::max(0.0, d.min_), d.max_);
  } else if (o.has("exponential")) {
    JsonObject e = o.object("exponential");
    d.kind_ = Kind::kExponential;
    d.a_ = e.required_number("mean", 1e-12, 1e300);
    e.finish();
    if (!has_max) d.max_ = max_allowed;
    if (!has_min) d.min_ = std::max(0.0, min_allowed);
    check_range(d.min_, d.max_);
  } else if (o.has("choice")) {
    const auto& c = o.raw("choice");
    if (!c.is_array() || c.empty()) {
      throw InputError(w, field + ".choice", "expected a non-empty array of numbers");
    }
    d.kind_ = Kind::kChoice;
    for (const auto& v : c) d.values_.push_back(number_at(v, w, field + ".choice"));
    std::vector<double> weights(d.values_.size(), 1.0);
    if (o.has("weights")) {
      const auto& wt = o.raw("weights");
      if (!wt.is_array() || wt.size() != d.values_.size()) {
        throw InputError(w, field + ".weights", "expected one weight per choice");
      }
      for (std::size_t i = 0; i < wt.size(); ++i) {
        weights[i] = number_at(wt[i], w, field + ".weights");
        if (weights[i] < 0) throw InputError(w, field + ".weights", "weights must be >= 0");
      }
    } else {
      o.allow("weights");
    }
    double total = 0.0;
    for (double x : weights) d.cumulative_.push_back(total += x);
    if (total <= 0) throw InputError(w, field + ".weights", "weights must not all be zero");
    for (double& x : d.cumulative_) x /= total;
    const auto [lo, hi] = std::minmax_element(d.values_.begin(), d.values_.end());
    check_range(std::max(*lo, d.min_), std::min(*hi, d.max_));
  } else {
    throw InputError(w, field,
                     "expected a number or one of {\"uniform\"}, {\"lognormal\"}, "
                     "{\"exponential\"}, {\"choice\"}");
  }
  o.finish();
  return d;
}

double Distribution::draw(Rng& rng) const {
  double x = 0.0;
  switch (kind_) {
    case Kind::kConstant:
      return a_;
    case Kind::kUniform:
      x = std::uniform_real_distribution<double>(a_, b_)(rng);
      break;
    case Kind::kLognormal:
      x = std::exp(a_ + b_ * std::normal_distribution<double>(0.0, 1.0)(rng));
      break;
    case Kind::kExponential:
      x = std::exponential_distribution<double>(1.0 / a_)(rng);
      break;
    case Kind::kChoice: {
      const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
      const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
      x = values_[std::min<std::size_t>(it - cumulative_.begin(), values_.size() - 1)];
      break;
    }
  }
  return std::clamp(x, min_, max_);
}

double Distribution::mean_hint() const {
  switch (kind_) {
    case Kind::kConstant:
      return a_;
    case Kind::kUniform:
      return 0.5 * (a_ + b_);
    case Kind::kLognormal:
      return std::exp(a_);
    case Kind::kExponential:
      return a_;
    case Kind::kChoice:
      return values_.front();
  }
  return 0.0;
}

}  // namespace gpumux
