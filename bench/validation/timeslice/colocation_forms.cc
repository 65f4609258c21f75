// Feature sets and forms for the speed of Lucid's co-located pairs, held out the way
// `gpumux calibrate pairs fit` holds them out (RESULTS.md section 3b): the analysis behind the
// per-config factors, kept so that its figures can be reproduced.
//
//   colocation_forms SINGLE.csv PAIRS.csv      (../shared/data/colocation/lucid_*.csv; ~15 s)
//
// Prints, for each candidate rate (a function of the two members' solo facts only), the 5-fold
// cross-validated MAE (seed 42) with folds by pair and by config, dealt by fold_splits as the
// fit deals them; the nested cross-validation that chooses the candidate inside each outer fold
// (3 inner folds by pair, seed 7); per-config sensitivity and pressure with no solo facts at
// all; nearest-neighbour medians as a ceiling of what the same solo facts carry without a form;
// the share of the error no rate <= 1 can avoid.
//
// Solo facts of a config: u = gpu_util / 100, m = gmem_util / 100 (memory controller),
// B = GPU-busy milliseconds per iteration = u * 1000 * batchsize / speed, amp, batch size.
// e = clamp(s * u^p, 0.01, 1) is the fitted mapping of colocation_model.h. Each candidate is fitted
// per fold by Levenberg-Marquardt on squared error (l2) or, by iteratively reweighted least
// squares, on absolute error (l1, the goal's own measure).
#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "calibrate/colocation/colocation_data.h"
#include "calibrate/colocation/colocation_model.h"

namespace {

using gpumux::calibration::Pair;
using gpumux::calibration::SingleConfig;
using Pairs = std::vector<const Pair*>;
using V = std::vector<double>;
using Rates = std::pair<double, double>;

double util(const SingleConfig& c) { return c.gpu_util / 100.0; }
double bandwidth(const SingleConfig& c) { return c.gmem_util / 100.0; }
double busy_ms(const SingleConfig& c) {
  return std::max(1e-3, 1000.0 * c.key.batchsize / c.speed * util(c));
}
double eff(const V& t, const SingleConfig& c) {
  return std::clamp(t[0] * std::pow(util(c), t[1]), 0.01, 1.0);
}
double shorter(double b0, const SingleConfig& c) { return busy_ms(c) / (busy_ms(c) + b0); }
double pressure(const V& t, const SingleConfig& c) {
  return std::pow(util(c), t[3]) * std::pow(busy_ms(c), -t[4]);
}
Rates both(double xa, double xb) { return {1 / (1 + xa), 1 / (1 + xb)}; }

struct Form {
  std::string name;
  std::function<Rates(const V&, const SingleConfig&, const SingleConfig&)> rates;
  std::vector<std::pair<double, double>> bounds;
  std::vector<V> starts;
};

// Log-linear sensitivity and pressure in `features` of the solo facts (F7, F8).
Form log_linear(std::string name, int features) {
  auto x = [](const SingleConfig& c) {
    return std::array<double, 5>{std::log(util(c)), std::log(bandwidth(c) + 0.01),
                                 std::log(busy_ms(c) / 10), static_cast<double>(c.key.amp),
                                 std::log(c.key.batchsize / 64.0)};
  };
  auto f = [x, features](const V& t, const SingleConfig& a, const SingleConfig& b) {
    auto sp = [&](const SingleConfig& c) {
      const auto v = x(c);
      double s = t[0], p = 0;
      for (int i = 0; i < features; ++i) s += t[1 + i] * v[i], p += t[1 + features + i] * v[i];
      return std::make_pair(std::exp(std::min(s, 30.0)), std::exp(std::min(p, 30.0)));
    };
    const auto sa = sp(a), sb = sp(b);
    return both(sa.first * sb.second, sb.first * sa.second);
  };
  V s1(1 + 2 * features, 0.0), s2(1 + 2 * features, 0.0);
  s1[0] = -1, s1[1] = 1, s1[1 + features] = 1;
  s2[0] = -1.5, s2[1] = 2, s2[1 + features] = 1, s2[2 + features] = 0.5, s2[3 + features] = -0.5;
  return {std::move(name),
          f,
          std::vector<std::pair<double, double>>(1 + 2 * features, {-20, 20}),
          {s1, s2}};
}

std::vector<Form> candidates() {
  const std::vector<std::pair<double, double>> b3{{0.05, 2}, {0.25, 4}, {0, 100}};
  auto with = [&](std::vector<std::pair<double, double>> more) {
    auto b = b3;
    b.insert(b.end(), more.begin(), more.end());
    return b;
  };
  std::vector<Form> f;
  f.push_back({"F1 1/(1 + a e_i e_j)",
               [](const V& t, const SingleConfig& a, const SingleConfig& b) {
                 const double x = t[2] * eff(t, a) * eff(t, b);
                 return both(x, x);
               },
               b3,
               {{1, 1, 1}, {0.5, 1.5, 2}}});
  f.push_back({"F2 F1 + bandwidth b m_i m_j",
               [](const V& t, const SingleConfig& a, const SingleConfig& b) {
                 const double x = t[2] * eff(t, a) * eff(t, b) + t[3] * bandwidth(a) * bandwidth(b);
                 return both(x, x);
               },
               with({{0, 100}}),
               {{1, 1, 1, 0}, {0.5, 1.5, 1, 1}}});
  f.push_back({"F3 F1 x sensitivity B_i/(B_i+B0)",
               [](const V& t, const SingleConfig& a, const SingleConfig& b) {
                 const double x = t[2] * eff(t, a) * eff(t, b);
                 return both(x * shorter(t[3], a), x * shorter(t[3], b));
               },
               with({{0, 1e4}}),
               {{1, 1, 1, 5}, {0.5, 1.5, 2, 20}}});
  f.push_back({"F4 F2 x sensitivity B_i/(B_i+B0)",
               [](const V& t, const SingleConfig& a, const SingleConfig& b) {
                 const double x = t[2] * eff(t, a) * eff(t, b) + t[3] * bandwidth(a) * bandwidth(b);
                 return both(x * shorter(t[4], a), x * shorter(t[4], b));
               },
               with({{0, 100}, {0, 1e4}}),
               {{1, 1, 1, 0, 5}, {0.5, 1.5, 1, 1, 20}}});
  f.push_back({"F5 1/(1 + a e_i u_j^q B_j^-d)",
               [](const V& t, const SingleConfig& a, const SingleConfig& b) {
                 return both(t[2] * eff(t, a) * pressure(t, b), t[2] * eff(t, b) * pressure(t, a));
               },
               with({{0.25, 4}, {0, 2}}),
               {{1, 1, 1, 1, 0}, {0.5, 1.5, 2, 1.5, 0.2}}});
  f.push_back({"F6 F5 + bandwidth, x sensitivity",
               [](const V& t, const SingleConfig& a, const SingleConfig& b) {
                 const double bw = t[5] * bandwidth(a) * bandwidth(b);
                 return both((t[2] * eff(t, a) * pressure(t, b) + bw) * shorter(t[6], a),
                             (t[2] * eff(t, b) * pressure(t, a) + bw) * shorter(t[6], b));
               },
               with({{0.25, 4}, {0, 2}, {0, 100}, {0, 1e4}}),
               {{1, 1, 1, 1, 0, 0, 5}, {0.5, 1.5, 2, 1.5, 0.2, 1, 20}}});
  f.push_back(log_linear("F7 log-linear in u, m, B, amp, batch", 5));
  f.push_back(log_linear("F8 log-linear in u, m, B", 3));
  return f;
}

Eigen::VectorXd residuals(const Form& f, const V& t, const Pairs& pairs,
                          const Eigen::VectorXd* w = nullptr) {
  Eigen::VectorXd r(2 * pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const Rates s = f.rates(t, *pairs[i]->job1, *pairs[i]->job2);
    r(2 * i) = s.first - pairs[i]->speed1;
    r(2 * i + 1) = s.second - pairs[i]->speed2;
  }
  return w ? Eigen::VectorXd(r.cwiseProduct(*w)) : r;
}

V bounded(V t, const Form& f) {
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] = std::clamp(t[i], f.bounds[i].first, f.bounds[i].second);
  return t;
}

// The damping schedule of colocation_model.cc.
V levenberg_marquardt(const Form& f, V t, const Pairs& pairs, const Eigen::VectorXd* w, int iters) {
  t = bounded(t, f);
  Eigen::VectorXd r = residuals(f, t, pairs, w);
  double cost = r.squaredNorm(), lambda = 1e-2;
  const int n = static_cast<int>(t.size());
  for (int it = 0; it < iters; ++it) {
    Eigen::MatrixXd jac(r.size(), n);
    for (int c = 0; c < n; ++c) {
      V tt = t;
      const double h = 1e-4 * std::max(1.0, std::abs(tt[c]));
      tt[c] += h;
      jac.col(c) = (residuals(f, tt, pairs, w) - r) / h;
    }
    const Eigen::MatrixXd jtj = jac.transpose() * jac;
    const Eigen::VectorXd jtr = jac.transpose() * r;
    bool improved = false;
    double gain = 0;
    for (int tries = 0; tries < 12 && !improved; ++tries) {
      Eigen::MatrixXd a = jtj;
      a.diagonal() += lambda * (jtj.diagonal().array() + 1e-9).matrix();
      const Eigen::VectorXd step = a.ldlt().solve(-jtr);
      V tn = t;
      for (int c = 0; c < n; ++c) tn[c] += step(c);
      tn = bounded(tn, f);
      const Eigen::VectorXd rn = residuals(f, tn, pairs, w);
      const double cn = rn.squaredNorm();
      if (std::isfinite(cn) && cn < cost) {
        improved = true, gain = cost - cn, t = tn, r = rn, cost = cn;
        lambda = std::max(1e-7, lambda / 3);
      } else {
        lambda *= 4;
      }
    }
    if (!improved || gain < 1e-6 * cost) break;
  }
  return t;
}

double mae(const Eigen::VectorXd& r) { return r.cwiseAbs().mean(); }

V fit(const Form& f, const Pairs& pairs, bool l1) {
  V best;
  double best_cost = 1e300;
  for (const V& start : f.starts) {
    V t = levenberg_marquardt(f, start, pairs, nullptr, 60);
    if (l1) {  // iteratively reweighted least squares towards least absolute deviations
      for (int k = 0; k < 8; ++k) {
        const Eigen::VectorXd w =
            residuals(f, t, pairs).cwiseAbs().cwiseMax(0.01).cwiseSqrt().cwiseInverse();
        t = levenberg_marquardt(f, t, pairs, &w, 20);
      }
    }
    const Eigen::VectorXd r = residuals(f, t, pairs);
    const double c = l1 ? mae(r) : r.squaredNorm();
    if (c < best_cost) best_cost = c, best = t;
  }
  return best;
}

using Split = std::vector<gpumux::calibration::FoldSplit>;

double cross_validate(const Form& f, const Split& split, bool l1) {
  double sum = 0;
  long n = 0;
  for (const auto& fold : split) {
    const Eigen::VectorXd r = residuals(f, fit(f, fold.train, l1), fold.test);
    sum += r.cwiseAbs().sum(), n += r.size();
  }
  return sum / static_cast<double>(n);
}

Split folds(const Pairs& pairs, int k, std::uint64_t seed, gpumux::calibration::FoldGroups g) {
  return gpumux::calibration::fold_splits({pairs}, k, seed, g)[0];
}

// Median speed of the 15 nearest training jobs in (self, co-runner) feature space, capped at 1.
double nearest(const Split& split, int features) {
  auto x = [features](const SingleConfig& a, const SingleConfig& b) {
    V v;
    for (const SingleConfig* c : {&a, &b}) {
      const double all[3] = {util(*c), bandwidth(*c), std::log(busy_ms(*c)) / 5};
      v.insert(v.end(), all, all + features);
    }
    return v;
  };
  double sum = 0;
  long n = 0;
  for (const auto& fold : split) {
    std::vector<std::pair<V, double>> known;
    for (const Pair* p : fold.train) {
      known.emplace_back(x(*p->job1, *p->job2), p->speed1);
      known.emplace_back(x(*p->job2, *p->job1), p->speed2);
    }
    for (const Pair* p : fold.test) {
      for (int side = 0; side < 2; ++side) {
        const V q = side == 0 ? x(*p->job1, *p->job2) : x(*p->job2, *p->job1);
        std::vector<std::pair<double, double>> d;
        for (const auto& [v, s] : known) {
          double dd = 0;
          for (std::size_t i = 0; i < v.size(); ++i) dd += (v[i] - q[i]) * (v[i] - q[i]);
          d.emplace_back(dd, s);
        }
        std::partial_sort(d.begin(), d.begin() + 15, d.end());
        std::vector<double> s;
        for (int i = 0; i < 15; ++i) s.push_back(d[i].second);
        std::nth_element(s.begin(), s.begin() + 7, s.end());
        sum += std::abs(std::min(1.0, s[7]) - (side == 0 ? p->speed1 : p->speed2)), ++n;
      }
    }
  }
  return sum / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpumux::calibration;
  if (argc != 3) {
    std::fprintf(stderr, "usage: colocation_forms SINGLE.csv PAIRS.csv\n");
    return 2;
  }
  const auto singles = load_singles(argv[1]);
  const auto pairs = load_pairs(argv[2], singles);
  Pairs all;
  for (const Pair& p : pairs) {
    if (p.matched()) all.push_back(&p);
  }
  const Split by_pair = folds(all, 5, 42, FoldGroups::kPairs);
  const Split by_config = folds(all, 5, 42, FoldGroups::kConfigs);
  const auto forms = candidates();
  std::printf("candidate, loss: 5-fold MAE by pair, by config (seed 42)\n");
  for (const Form& f : forms) {
    for (bool l1 : {false, true}) {
      std::printf("  %-38s %s: %.4f, %.4f\n", f.name.c_str(), l1 ? "l1" : "l2",
                  cross_validate(f, by_pair, l1), cross_validate(f, by_config, l1));
      std::fflush(stdout);
    }
  }
  for (const auto& [name, outer] : {std::pair{"pair", &by_pair}, std::pair{"config", &by_config}}) {
    double sum = 0;
    long n = 0;
    std::string chosen;
    for (const auto& fold : *outer) {
      const Split inner = folds(fold.train, 3, 7, FoldGroups::kPairs);
      std::size_t best = 0;
      bool best_l1 = false;
      double best_mae = 1e300;
      for (std::size_t i = 0; i < forms.size(); ++i) {
        for (bool l1 : {false, true}) {
          const double m = cross_validate(forms[i], inner, l1);
          if (m < best_mae) best_mae = m, best = i, best_l1 = l1;
        }
      }
      const Eigen::VectorXd r =
          residuals(forms[best], fit(forms[best], fold.train, best_l1), fold.test);
      sum += r.cwiseAbs().sum(), n += r.size();
      chosen += " " + forms[best].name.substr(0, 2) + (best_l1 ? " l1" : " l2");
    }
    std::printf("nested (choice among the %zu by 3 inner folds), folds by %s: %.4f; chose%s\n",
                2 * forms.size(), name, sum / static_cast<double>(n), chosen.c_str());
  }
  // No solo facts at all: a sensitivity and a pressure per config (what per-config structure is
  // worth; a config in no training pair keeps its starting value).
  std::map<const SingleConfig*, int> index;
  for (const Pair* p : all) index.emplace(p->job1, 0), index.emplace(p->job2, 0);
  int configs = 0;
  for (auto& entry : index) entry.second = configs++;
  const Form per_config{
      "per-config sensitivity x pressure",
      [&index, configs](const V& t, const SingleConfig& a, const SingleConfig& b) {
        const int i = index.at(&a), j = index.at(&b);
        return both(std::exp(t[i] + t[configs + j]), std::exp(t[j] + t[configs + i]));
      },
      std::vector<std::pair<double, double>>(2 * configs, {-20, 20}),
      {V(2 * configs, -1.0)}};
  std::printf("%s (%d parameters, l2): %.4f by pair, %.4f by config\n", per_config.name.c_str(),
              2 * configs, cross_validate(per_config, by_pair, false),
              cross_validate(per_config, by_config, false));
  for (int features : {1, 2, 3}) {
    std::printf(
        "15 nearest neighbours on (u, m, log B)[:%d] of both, capped at 1: %.4f by pair, "
        "%.4f by config\n",
        features, nearest(by_pair, features), nearest(by_config, features));
  }
  double above = 0;
  int speeds_above = 0;
  for (const Pair* p : all) {
    for (double s : {p->speed1, p->speed2}) above += std::max(0.0, s - 1), speeds_above += s > 1;
  }
  std::printf("job speeds above 1: %d of %zu; what any rate <= 1 pays on them: %.4f\n",
              speeds_above, 2 * all.size(), above / (2.0 * all.size()));
  return 0;
}
