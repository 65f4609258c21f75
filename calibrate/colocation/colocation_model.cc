#include "calibrate/colocation/colocation_model.h"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "models/mps/mps_rates.h"
#include "models/registry.h"
#include "models/timeslice/timeslice_rates.h"
#include "sim/base/input_error.h"

namespace gpumux::calibration {
namespace {

constexpr int kParams = 4;
// Fitted: util_scale, util_exponent, switch cost (in units of 100 us, to keep the Jacobian's
// columns comparable), interference. kernel_us and the slice stay fixed: only their ratios to
// the switch cost matter and the data cannot separate them.
using Theta = std::array<double, kParams>;

ColocationParams from_theta(const Theta& t) {
  ColocationParams p;
  p.util_scale = std::clamp(t[0], 0.05, 2.0);
  p.util_exponent = std::clamp(t[1], 0.25, 4.0);
  p.switch_cost_us = 100.0 * std::clamp(t[2], 0.0, 100.0);
  p.interference = std::clamp(t[3], 0.0, 100.0);
  return p;
}

Theta to_theta(const ColocationParams& p) {
  return {p.util_scale, p.util_exponent, p.switch_cost_us / 100.0, p.interference};
}

// Scratch space reused across the pairs of one pass (a fit evaluates the model a few million
// times: the rate models' allocating forms made allocation the larger part of its cost, most
// of all under the sanitizers). Same functions, same results.
struct Evaluator {
  TimeSliceWorkspace timeslice;
  MpsWorkspace mps;
  std::array<double, 2> rates{};
};

std::pair<double, double> predict_with(ModelKind kind, const ColocationParams& p,
                                       const SingleConfig& a, const SingleConfig& b,
                                       Evaluator& ev) {
  auto mapped = [&](const SingleConfig& c) {
    return std::clamp(p.util_scale * std::pow(c.gpu_util / 100.0, p.util_exponent), 0.01, 1.0);
  };
  switch (kind) {
    case ModelKind::kNone:
      return {1.0, 1.0};
    case ModelKind::kProportional: {
      const double sum = (a.gpu_util + b.gpu_util) / 100.0;
      const double s = sum > 1.0 ? 1.0 / sum : 1.0;
      return {s, s};
    }
    case ModelKind::kMps: {
      const double ua = mapped(a), ub = mapped(b);
      const std::array<MpsJob, 2> jobs{MpsJob{ua, ua, 1.0, p.kernel_us},
                                       MpsJob{ub, ub, 1.0, p.kernel_us}};
      MpsParams mp;
      mp.interference = p.interference;
      mps_rates(jobs, mp, ev.rates, ev.mps);
      return {ev.rates[0], ev.rates[1]};
    }
    case ModelKind::kTimeslice:
      break;
  }
  const std::array<TimeSliceJob, 2> jobs{TimeSliceJob{mapped(a), p.kernel_us},
                                         TimeSliceJob{mapped(b), p.kernel_us}};
  TimeSliceParams tp;
  tp.time_slice_us = p.time_slice_us;
  tp.switch_cost_us = p.switch_cost_us;
  tp.interference = p.interference;
  timeslice_rates(jobs, tp, ev.rates, ev.timeslice);
  return {ev.rates[0], ev.rates[1]};
}

Eigen::VectorXd residuals(ModelKind kind, const ColocationParams& p,
                          const std::vector<const Pair*>& pairs) {
  Eigen::VectorXd r(2 * pairs.size());
  Evaluator ev;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto [s1, s2] = predict_with(kind, p, *pairs[i]->job1, *pairs[i]->job2, ev);
    r(2 * i) = s1 - pairs[i]->speed1;
    r(2 * i + 1) = s2 - pairs[i]->speed2;
  }
  return r;
}

FitReport levenberg_marquardt(ModelKind kind, Theta theta, const std::vector<const Pair*>& pairs) {
  Eigen::VectorXd r = residuals(kind, from_theta(theta), pairs);
  double cost = r.squaredNorm();
  double lambda = 1e-2;
  int it = 0;
  for (; it < 60; ++it) {
    Eigen::MatrixXd jac(r.size(), kParams);
    for (int c = 0; c < kParams; ++c) {
      Theta t = theta;
      const double h = 1e-4 * std::max(1.0, std::abs(t[c]));
      t[c] += h;
      jac.col(c) = (residuals(kind, from_theta(t), pairs) - r) / h;
    }
    const Eigen::MatrixXd jtj = jac.transpose() * jac;
    const Eigen::VectorXd jtr = jac.transpose() * r;
    bool improved = false;
    for (int tries = 0; tries < 12 && !improved; ++tries) {
      Eigen::MatrixXd a = jtj;
      a.diagonal() += lambda * (jtj.diagonal().array() + 1e-9).matrix();
      const Eigen::VectorXd step = a.ldlt().solve(-jtr);
      Theta t = theta;
      for (int c = 0; c < kParams; ++c) t[c] += step(c);
      t = to_theta(from_theta(t));  // project onto the bounds
      const Eigen::VectorXd rt = residuals(kind, from_theta(t), pairs);
      const double ct = rt.squaredNorm();
      if (ct < cost) {
        improved = true;
        const double gain = cost - ct;
        theta = t, r = rt, cost = ct;
        lambda = std::max(1e-7, lambda / 3.0);
        if (gain < 1e-6 * cost) it = 1000;  // converged
      } else {
        lambda *= 4.0;
      }
    }
    if (!improved) break;
  }
  FitReport out;
  out.params = from_theta(theta);
  out.rms = std::sqrt(cost / static_cast<double>(r.size()));
  out.iterations = std::min(it, 60);
  return out;
}

}  // namespace

namespace {

// The sharing model fitted by the pairs form `kind` (precondition: kTimeslice or kMps).
const std::string& fitted_model(ModelKind kind) {
  const SharingModelInfo* m = first_model_of(
      kind == ModelKind::kMps ? ContentionForm::kConcurrent : ContentionForm::kTimeSlicing);
  return m->name;
}

}  // namespace

std::vector<std::string> pair_model_names() {
  std::vector<std::string> names = contention_model_names();
  names.emplace_back("none");
  names.emplace_back("proportional");
  std::sort(names.begin(), names.end());
  return names;
}

ModelKind parse_model(const std::string& name) {
  if (name == "none") return ModelKind::kNone;
  if (name == "proportional") return ModelKind::kProportional;
  const SharingModelInfo* m = sharing_models().find(name);
  if (m != nullptr && m->capabilities.contention_form == ContentionForm::kTimeSlicing) {
    return ModelKind::kTimeslice;
  }
  if (m != nullptr && m->capabilities.contention_form == ContentionForm::kConcurrent) {
    return ModelKind::kMps;
  }
  std::string valid;
  for (const std::string& n : pair_model_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw InputError("--model", "model", "unknown model '" + name + "'; valid: " + valid);
}

const char* model_name(ModelKind kind) {
  switch (kind) {
    case ModelKind::kNone:
      return "none";
    case ModelKind::kProportional:
      return "proportional";
    case ModelKind::kMps:
    case ModelKind::kTimeslice:
      break;
  }
  return fitted_model(kind).c_str();
}

const std::string& default_pair_model() { return fitted_model(ModelKind::kTimeslice); }

std::pair<double, double> predict_pair(ModelKind kind, const ColocationParams& p,
                                       const SingleConfig& a, const SingleConfig& b) {
  Evaluator ev;
  return predict_with(kind, p, a, b, ev);
}

std::vector<std::pair<double, double>> predict_pairs(ModelKind kind, const ColocationParams& params,
                                                     const std::vector<const Pair*>& pairs) {
  std::vector<std::pair<double, double>> out;
  out.reserve(pairs.size());
  Evaluator ev;
  for (const Pair* p : pairs) out.push_back(predict_with(kind, params, *p->job1, *p->job2, ev));
  return out;
}

double mean_abs_error(ModelKind kind, const ColocationParams& params,
                      const std::vector<const Pair*>& pairs, const ConfigFactors* factors) {
  double sum = 0.0;
  int count = 0;
  Evaluator ev;
  for (const Pair* p : pairs) {
    if (!p->matched()) continue;
    auto rates = predict_with(kind, params, *p->job1, *p->job2, ev);
    if (factors != nullptr) rates = apply_factors(rates, *factors, p->key1, p->key2);
    sum += std::abs(rates.first - p->speed1) + std::abs(rates.second - p->speed2);
    count += 2;
  }
  return count > 0 ? sum / count : 0.0;
}

FitReport fit_timeslice(const std::vector<const Pair*>& pairs) {
  return fit_model(ModelKind::kTimeslice, pairs);
}

FitReport fit_model(ModelKind kind, const std::vector<const Pair*>& pairs) {
  // The cost surface has flat regions where the model switches regime: start from a few
  // physically different points and keep the best.
  FitReport best;
  best.rms = 1e300;
  for (const Theta& start :
       {Theta{1.0, 1.0, 0.5, 0.0}, Theta{0.6, 2.0, 0.1, 0.2}, Theta{0.5, 1.5, 0.0, 0.5}}) {
    FitReport f = levenberg_marquardt(kind, start, pairs);
    if (f.rms < best.rms) best = f;
  }
  if (kind == ModelKind::kMps) best.params.switch_cost_us = 0.0;  // not part of this model
  return best;
}

FoldGroups parse_fold_groups(const std::string& name) {
  if (name == "pairs") return FoldGroups::kPairs;
  if (name == "configs") return FoldGroups::kConfigs;
  throw InputError("--cv-groups", "cv-groups",
                   "unknown grouping '" + name + "'; valid: configs, pairs");
}

namespace {

// Portable Fisher-Yates (std::shuffle's output differs between standard libraries).
template <typename T>
void shuffle_portably(std::vector<T>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
}

}  // namespace

std::vector<std::vector<FoldSplit>> fold_splits(
    const std::vector<std::vector<const Pair*>>& sources, int folds, std::uint64_t seed,
    FoldGroups groups) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<FoldSplit>> out(sources.size(), std::vector<FoldSplit>(folds));
  if (groups == FoldGroups::kPairs) {
    for (std::size_t s = 0; s < sources.size(); ++s) {
      std::vector<const Pair*> pairs = sources[s];
      shuffle_portably(pairs, rng);
      for (int f = 0; f < folds; ++f) {
        for (std::size_t i = 0; i < pairs.size(); ++i) {
          auto& split = out[s][f];
          (static_cast<int>(i % folds) == f ? split.test : split.train).push_back(pairs[i]);
        }
      }
    }
    return out;
  }
  // Configs in a fixed order (by key, then source) before the shuffle, so that the folds do not
  // depend on pointer values.
  std::vector<std::pair<ConfigKey, const SingleConfig*>> configs;
  std::map<const SingleConfig*, int> fold_of;
  for (const auto& pairs : sources) {
    for (const Pair* p : pairs) {
      for (const SingleConfig* c : {p->job1, p->job2}) {
        if (fold_of.emplace(c, -1).second) configs.emplace_back(c->key, c);
      }
    }
  }
  std::stable_sort(configs.begin(), configs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  shuffle_portably(configs, rng);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    fold_of[configs[i].second] = static_cast<int>(i % folds);
  }
  for (std::size_t s = 0; s < sources.size(); ++s) {
    for (int f = 0; f < folds; ++f) {
      for (const Pair* p : sources[s]) {
        const bool tested = fold_of[p->job1] == f || fold_of[p->job2] == f;
        (tested ? out[s][f].test : out[s][f].train).push_back(p);
      }
    }
  }
  return out;
}

std::vector<SourceScore> cross_validate_sources(
    const std::vector<std::vector<const Pair*>>& sources, const std::vector<std::string>& names,
    int folds, std::uint64_t seed, FoldGroups groups, bool with_factors) {
  const auto split = fold_splits(sources, folds, seed, groups);
  std::vector<std::vector<std::size_t>> choices;
  for (std::size_t s = 0; s < sources.size(); ++s) choices.push_back({s});
  if (sources.size() > 1) {
    choices.emplace_back();
    for (std::size_t s = 0; s < sources.size(); ++s) choices.back().push_back(s);
  }
  std::vector<SourceScore> out;
  for (const auto& choice : choices) {
    std::vector<SourceScore> rows(sources.size());
    for (std::size_t s = 0; s < sources.size(); ++s) {
      rows[s].train = choice.size() == 1 ? names[choice[0]] : "all";
      rows[s].test = names[s];
    }
    for (int f = 0; f < folds; ++f) {
      std::vector<const Pair*> train;
      for (std::size_t s : choice) {
        train.insert(train.end(), split[s][f].train.begin(), split[s][f].train.end());
      }
      if (train.empty()) continue;
      const FitReport ts = fit_model(ModelKind::kTimeslice, train);
      const FitReport mps = fit_model(ModelKind::kMps, train);
      ConfigFactors ts_factors, mps_factors;
      if (with_factors) {
        ts_factors = fit_config_factors(
            train, predict_pairs(ModelKind::kTimeslice, ts.params, train), factor_ridge(ts.rms));
        mps_factors = fit_config_factors(train, predict_pairs(ModelKind::kMps, mps.params, train),
                                         factor_ridge(mps.rms));
      }
      for (std::size_t s = 0; s < sources.size(); ++s) {
        const auto& test = split[s][f].test;
        const double n = 2.0 * static_cast<double>(test.size());
        rows[s].jobs += static_cast<int>(n);
        rows[s].timeslice_mae += mean_abs_error(ModelKind::kTimeslice, ts.params, test) * n;
        rows[s].mps_mae += mean_abs_error(ModelKind::kMps, mps.params, test) * n;
        rows[s].none_mae += mean_abs_error(ModelKind::kNone, {}, test) * n;
        rows[s].proportional_mae += mean_abs_error(ModelKind::kProportional, {}, test) * n;
        if (with_factors) {
          rows[s].timeslice_factors_mae +=
              mean_abs_error(ModelKind::kTimeslice, ts.params, test, &ts_factors) * n;
          rows[s].mps_factors_mae +=
              mean_abs_error(ModelKind::kMps, mps.params, test, &mps_factors) * n;
        }
      }
    }
    for (SourceScore& r : rows) {
      if (r.jobs == 0) continue;
      r.timeslice_mae /= r.jobs, r.mps_mae /= r.jobs, r.none_mae /= r.jobs;
      r.proportional_mae /= r.jobs;
      r.timeslice_factors_mae /= r.jobs, r.mps_factors_mae /= r.jobs;
    }
    out.insert(out.end(), rows.begin(), rows.end());
  }
  return out;
}

CrossValidation cross_validate(const std::vector<const Pair*>& all, int folds, std::uint64_t seed,
                               FoldGroups groups, bool with_factors) {
  std::vector<const Pair*> pairs;
  for (const Pair* p : all) {
    if (p->matched()) pairs.push_back(p);
  }
  const SourceScore score =
      cross_validate_sources({pairs}, {"pairs"}, folds, seed, groups, with_factors)[0];
  CrossValidation cv;
  cv.folds = folds;
  cv.seed = seed;
  cv.jobs = score.jobs;
  cv.timeslice_mae = score.timeslice_mae;
  cv.mps_mae = score.mps_mae;
  cv.none_mae = score.none_mae;
  cv.proportional_mae = score.proportional_mae;
  cv.timeslice_factors_mae = score.timeslice_factors_mae;
  cv.mps_factors_mae = score.mps_factors_mae;
  return cv;
}

nlohmann::json to_json(const ColocationParams& p) {
  return {{"util_scale", p.util_scale},         {"util_exponent", p.util_exponent},
          {"switch_cost_us", p.switch_cost_us}, {"kernel_us", p.kernel_us},
          {"interference", p.interference},     {"time_slice_us", p.time_slice_us}};
}

ColocationParams params_from_json(const nlohmann::json& j, const std::string& where) {
  ColocationParams p;
  auto get = [&](const char* field, double& value, double lo, double hi) {
    const std::string pointer = where + "/" + field;
    if (!j.contains(field)) throw InputError(pointer, field, "missing");
    if (!j[field].is_number()) throw InputError(pointer, field, "expected a number");
    value = j[field].get<double>();
    if (!(value >= lo && value <= hi)) {
      throw InputError(pointer, field,
                       "value outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
  };
  get("util_scale", p.util_scale, 0.0, 10.0);
  get("util_exponent", p.util_exponent, 0.0, 10.0);
  get("switch_cost_us", p.switch_cost_us, 0.0, 1e7);
  get("kernel_us", p.kernel_us, 1e-3, 1e7);
  get("interference", p.interference, 0.0, 100.0);
  get("time_slice_us", p.time_slice_us, 1e-3, 1e7);
  return p;
}

}  // namespace gpumux::calibration
