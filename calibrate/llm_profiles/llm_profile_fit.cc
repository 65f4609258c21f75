#include "calibrate/llm_profiles/llm_profile_fit.h"

#include <map>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

namespace gpumux::calibration {

namespace {

struct Group {
  std::vector<LlmOpClass> classes;      // the points it is fitted on
  std::vector<std::string> parameters;  // its free parameters
};

const std::vector<Group>& groups() {
  static const std::vector<Group> g = {
      {{LlmOpClass::kGemm, LlmOpClass::kLmHead},
       {"gemm_latency_us", "gemm_compute_efficiency", "gemm_half_tokens", "gemm_memory_efficiency",
        "gemm_knee_exponent"}},
      {{LlmOpClass::kElementwise}, {"elementwise_latency_us", "elementwise_memory_efficiency"}},
      {{LlmOpClass::kSampler}, {"sampler_latency_us", "sampler_memory_efficiency"}},
      {{LlmOpClass::kPrefillAttention},
       {"prefill_attention_latency_us", "prefill_attention_compute_efficiency",
        "prefill_attention_half_chunk", "prefill_attention_half_row"}},
      {{LlmOpClass::kDecodeAttention},
       {"decode_attention_latency_us", "decode_attention_per_seq_us",
        "decode_attention_memory_efficiency", "decode_attention_half_seqs"}},
      // After the prefill and decode groups: the mixed rows' prefill part is theirs.
      {{LlmOpClass::kMixedAttention},
       {"mixed_decode_per_seq_us", "mixed_decode_memory_efficiency"}},
  };
  return g;
}

const LlmEfficiencyField& field(const std::string& name) {
  for (const LlmEfficiencyField& f : llm_efficiency_fields()) {
    if (f.name == name) return f;
  }
  throw std::logic_error("unknown LLM efficiency field " + name);
}

bool in_group(const Group& g, LlmOpClass c) {
  return std::find(g.classes.begin(), g.classes.end(), c) != g.classes.end();
}

std::vector<RooflineTimeModel> models_for(const LlmProfileData& data, const LlmDevicePeaks& peaks,
                                          const LlmEfficiency& e) {
  std::vector<RooflineTimeModel> models;
  models.reserve(data.shapes.size());
  for (const LlmProfileShape& s : data.shapes) models.emplace_back(s.shape, peaks, e, s.tp, true);
  return models;
}

// Nelder-Mead minimisation of f from x0 (standard coefficients; deterministic).
std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                                std::vector<double> x0, double step, int max_evals) {
  const std::size_t n = x0.size();
  std::vector<std::vector<double>> simplex(n + 1, x0);
  std::vector<double> value(n + 1);
  for (std::size_t i = 0; i < n; ++i) simplex[i + 1][i] += step;
  int evals = 0;
  for (std::size_t i = 0; i <= n; ++i) value[i] = f(simplex[i]), ++evals;
  std::vector<std::size_t> order(n + 1);
  while (evals < max_evals) {
    for (std::size_t i = 0; i <= n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return value[a] < value[b]; });
    const std::size_t best = order[0], worst = order[n], second = order[n - 1];
    if (std::abs(value[worst] - value[best]) <= 1e-12 * (1.0 + std::abs(value[best]))) break;
    std::vector<double> centroid(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k <= n; ++k) {
        if (k != worst) centroid[i] += simplex[k][i] / static_cast<double>(n);
      }
    }
    auto along = [&](double t) {
      std::vector<double> x(n);
      for (std::size_t i = 0; i < n; ++i)
        x[i] = centroid[i] + t * (simplex[worst][i] - centroid[i]);
      return x;
    };
    const std::vector<double> reflected = along(-1.0);
    const double fr = f(reflected);
    ++evals;
    if (fr < value[best]) {
      const std::vector<double> expanded = along(-2.0);
      const double fe = f(expanded);
      ++evals;
      if (fe < fr) {
        simplex[worst] = expanded, value[worst] = fe;
      } else {
        simplex[worst] = reflected, value[worst] = fr;
      }
    } else if (fr < value[second]) {
      simplex[worst] = reflected, value[worst] = fr;
    } else {
      const bool outside = fr < value[worst];
      const std::vector<double> contracted = along(outside ? -0.5 : 0.5);
      const double fc = f(contracted);
      ++evals;
      if (fc < std::min(fr, value[worst])) {
        simplex[worst] = contracted, value[worst] = fc;
      } else {
        for (std::size_t k = 0; k <= n; ++k) {
          if (k == best) continue;
          for (std::size_t i = 0; i < n; ++i) {
            simplex[k][i] = simplex[best][i] + 0.5 * (simplex[k][i] - simplex[best][i]);
          }
          value[k] = f(simplex[k]);
          ++evals;
        }
      }
    }
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i <= n; ++i) {
    if (value[i] < value[best]) best = i;
  }
  return simplex[best];
}

// Fits one group's parameters on the selected points; returns the efficiency with them set.
LlmEfficiency fit_group(const Group& g, const LlmProfileData& data, const std::vector<bool>& use,
                        const LlmDevicePeaks& peaks, const LlmEfficiency& start) {
  std::vector<std::size_t> points;
  for (std::size_t i = 0; i < data.points.size(); ++i) {
    if (use[i] && in_group(g, data.points[i].cls)) points.push_back(i);
  }
  // Parameters in log space; a small floor keeps 0-valued starts (a latency) movable.
  std::vector<const LlmEfficiencyField*> fields;
  std::vector<double> x0;
  for (const std::string& name : g.parameters) {
    const LlmEfficiencyField& f = field(name);
    fields.push_back(&f);
    x0.push_back(std::log(std::max(start.*f.member, 1e-3)));
  }
  auto apply = [&](const std::vector<double>& x, LlmEfficiency& e) {
    bool inside = true;
    for (std::size_t i = 0; i < x.size(); ++i) {
      double v = std::exp(x[i]);
      const double lo = std::max(fields[i]->min, 1e-6);
      if (v < lo || v > fields[i]->max) inside = false;
      e.*(fields[i]->member) = std::clamp(v, lo, fields[i]->max);
    }
    return inside;
  };
  auto objective = [&](const std::vector<double>& x) {
    LlmEfficiency e = start;
    const bool inside = apply(x, e);
    const std::vector<RooflineTimeModel> models = models_for(data, peaks, e);
    double sum = 0.0;
    for (std::size_t i : points) {
      const LlmProfilePoint& p = data.points[i];
      const double r =
          std::log(predict_llm_point(models[static_cast<std::size_t>(p.shape)], p) / p.measured_us);
      sum += r * r;
    }
    return sum / static_cast<double>(points.size()) + (inside ? 0.0 : 1e3);
  };
  std::vector<double> x = x0;
  double best = objective(x);
  for (int round = 0; round < 8; ++round) {
    const std::vector<double> next = nelder_mead(objective, x, round == 0 ? 0.5 : 0.2, 3000);
    const double value = objective(next);
    const bool better = value < best - 1e-10 * (1.0 + best);
    if (value < best) x = next, best = value;
    if (!better && round > 0) break;
  }
  LlmEfficiency e = start;
  apply(x, e);
  return e;
}

std::size_t min_points(const Group& g) { return g.parameters.size() + 3; }

}  // namespace

LlmErrorStats llm_error_stats(std::vector<double> e) {
  LlmErrorStats s;
  s.points = static_cast<int>(e.size());
  if (e.empty()) return s;
  std::sort(e.begin(), e.end());
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(e.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, e.size() - 1);
    return e[lo] + (pos - static_cast<double>(lo)) * (e[hi] - e[lo]);
  };
  s.median = quantile(0.5);
  s.p90 = quantile(0.9);
  s.max = e.back();
  double sum = 0.0;
  for (double v : e) sum += v;
  s.mean = sum / static_cast<double>(e.size());
  return s;
}

std::vector<double> predict_llm_profiles(const LlmProfileData& data, const LlmDevicePeaks& peaks,
                                         const LlmEfficiency& efficiency) {
  const std::vector<RooflineTimeModel> models = models_for(data, peaks, efficiency);
  std::vector<double> out;
  out.reserve(data.points.size());
  for (const LlmProfilePoint& p : data.points) {
    out.push_back(predict_llm_point(models[static_cast<std::size_t>(p.shape)], p));
  }
  return out;
}

LlmEfficiency fit_llm_points(const LlmProfileData& data, const std::vector<bool>& use,
                             const LlmDevicePeaks& peaks, const LlmEfficiency& start) {
  LlmEfficiency e = start;
  for (const Group& g : groups()) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < data.points.size(); ++i) {
      if (use[i] && in_group(g, data.points[i].cls)) ++n;
    }
    if (n < min_points(g)) continue;
    e = fit_group(g, data, use, peaks, e);
    for (const std::string& name : g.parameters) e.fitted.insert(name);
  }
  return e;
}

LlmProfileFit fit_llm_profiles(const LlmProfileData& data, const LlmDevicePeaks& peaks,
                               const LlmEfficiency& start, bool cross_validate) {
  LlmProfileFit fit;
  const std::vector<bool> all(data.points.size(), true);
  fit.efficiency = fit_llm_points(data, all, peaks, start);
  const std::vector<double> predicted = predict_llm_profiles(data, peaks, fit.efficiency);

  const LlmOpClass classes[] = {
      LlmOpClass::kGemm,          LlmOpClass::kLmHead,           LlmOpClass::kElementwise,
      LlmOpClass::kSampler,       LlmOpClass::kPrefillAttention, LlmOpClass::kDecodeAttention,
      LlmOpClass::kMixedAttention};
  for (LlmOpClass c : classes) {
    std::vector<double> errors;
    std::set<double> keys;
    for (std::size_t i = 0; i < data.points.size(); ++i) {
      if (data.points[i].cls != c) continue;
      errors.push_back(std::abs(predicted[i] / data.points[i].measured_us - 1.0));
      keys.insert(data.points[i].holdout_key);
    }
    if (errors.empty()) continue;
    LlmClassFit cf;
    cf.cls = c;
    cf.error = llm_error_stats(errors);
    const Group* group = nullptr;
    for (const Group& g : groups()) {
      if (in_group(g, c)) group = &g;
    }
    if (group != nullptr) {
      cf.parameters = group->parameters;
      cf.fitted = fit.efficiency.is_fitted(group->parameters.front());
    }
    if (cross_validate && cf.fitted && keys.size() >= 5) {
      std::set<double> held;
      std::size_t k = 0;
      for (double key : keys) {
        if (k++ % 5 == 2) held.insert(key);
      }
      // Hold out those counts in every class of the group (the LM head's sequences with the
      // GEMMs' tokens).
      std::vector<bool> use(data.points.size(), true);
      for (std::size_t i = 0; i < data.points.size(); ++i) {
        if (in_group(*group, data.points[i].cls) && held.count(data.points[i].holdout_key)) {
          use[i] = false;
        }
      }
      // From the full fit: the other groups' parameters are the fitted ones (the mixed group
      // needs the prefill and decode groups'); the group itself is refitted without the counts.
      const LlmEfficiency cv = fit_group(*group, data, use, peaks, fit.efficiency);
      const std::vector<double> cv_pred = predict_llm_profiles(data, peaks, cv);
      std::vector<double> cv_errors;
      std::map<int, std::vector<double>> by_tp;
      for (std::size_t i = 0; i < data.points.size(); ++i) {
        if (data.points[i].cls == c && !use[i]) {
          const double e = std::abs(cv_pred[i] / data.points[i].measured_us - 1.0);
          cv_errors.push_back(e);
          by_tp[data.shapes[static_cast<std::size_t>(data.points[i].shape)].tp].push_back(e);
        }
      }
      cf.held_out = llm_error_stats(cv_errors);
      for (auto& [tp, tp_errors] : by_tp) {
        cf.held_out_by_tp.emplace_back(tp, llm_error_stats(tp_errors));
      }
    }
    fit.classes.push_back(cf);
  }
  return fit;
}

}  // namespace gpumux::calibration
