#include "models/timeslice/timeslice_rates.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Dense>

namespace gpumux {
namespace {

constexpr int kMaxIterations = 300;
constexpr double kTolerance = 1e-10;
constexpr double kDamping = 0.5;
constexpr int kInnerPasses = 20;
constexpr int kNewtonIterations = 60;
constexpr double kMinRate = 1e-9;
constexpr double kAcceptableResidual = 1e-6;
// Idle share below which the round-robin model takes over (chosen on a validation grid,
// seed 77; checked on another, seed 5150: RESULTS.md).
constexpr double kSaturatedIdle = 0.1;

// How a burst of mean `k` is cut into holds of at most one slice `t` when others wait.
struct Holds {
  double mean = 0.0;      // h: mean hold
  double residual = 0.0;  // E[hold^2] / (2 h): remaining part of a hold seen at a random time
  double count = 1.0;     // c: holds per burst
};

Holds holds_of(double k, double t, BurstDistribution d, bool continuous) {
  Holds h;
  if (continuous) {
    h.mean = t;
    h.residual = t / 2.0;
    h.count = 1.0;  // unused: continuous jobs are handled per unit of work
    return h;
  }
  if (d == BurstDistribution::kFixed) {
    const double c = std::max(1.0, std::ceil(k / t - 1e-12));
    const double last = k - (c - 1.0) * t;
    h.mean = k / c;
    h.residual = ((c - 1.0) * t * t + last * last) / c / (2.0 * h.mean);
    h.count = c;
    return h;
  }
  // Exponential bursts are memoryless: every hold is min(Exp(k), t).
  const double e = std::exp(-t / k);
  h.mean = k * (1.0 - e);
  const double second = 2.0 * k * k * (1.0 - e * (1.0 + t / k));
  h.residual = second / (2.0 * h.mean);
  h.count = 1.0 / (1.0 - e);
  return h;
}

// E[max(0, H - G)]: how long a hold H still runs after a memoryless gap G of mean g ends.
double overrun(double h, double g, BurstDistribution d) {
  if (g <= 0.0) return h;
  if (d == BurstDistribution::kFixed) return h - g * (1.0 - std::exp(-h / g));
  return h * h / (h + g);  // H exponential with mean h
}

// P(G < H): a memoryless gap G of mean g ends during a hold H.
double gap_ends_within(double h, double g, BurstDistribution d) {
  if (g <= 0.0) return 1.0;
  if (d == BurstDistribution::kFixed) return 1.0 - std::exp(-h / g);
  return h / (h + g);
}

// Saturated-regime model used where the fixed point cannot be found (heavy ping-pong, many
// jobs): the GPU serves contexts round-robin, one hold each per round, skipping those still in
// their gap. A round lasts R = sum_j p_j(R) (s + h_j), where p_j(R), the share of turns at
// which j is ready, grows with R; R is found by bisection.
struct RoundRobin {
  std::vector<double> rates;
  double busy = 0.0, lost = 0.0;
};

RoundRobin round_robin(std::span<const TimeSliceJob> jobs, const std::vector<double>& g, const std::vector<double>& slow,
                       const std::vector<Holds>& hold, const std::vector<bool>& continuous,
                       double s, double t) {
  const std::size_t n = jobs.size();
  std::vector<double> p(n), h(n);
  // A turn costs a switch only if another context ran since j's previous turn.
  std::vector<double> sw(n, s);
  auto ready_share = [&](double round) {
    double total = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      if (continuous[j]) {
        p[j] = 1.0;
        h[j] = t;
      } else {
        h[j] = hold[j].mean;
        // After its last hold of a burst, j needs its gap to end before its next turn: the
        // first comes R - s - h_j later, the following ones a round apart each.
        const double first = std::max(0.0, round - sw[j] - h[j]);
        const double skips = std::exp(-first / g[j]) / (1.0 - std::exp(-round / g[j]) + 1e-300);
        p[j] = hold[j].count / (hold[j].count + skips);
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      double nobody_else = 1.0;
      for (std::size_t m = 0; m < n; ++m) {
        if (m != j) nobody_else *= 1.0 - p[m];
      }
      sw[j] = s * (1.0 - nobody_else);
      total += p[j] * (sw[j] + h[j]);
    }
    return total;
  };
  double lo = 0.0, hi = 0.0;
  for (std::size_t j = 0; j < n; ++j) hi += s + (continuous[j] ? t : hold[j].mean);
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (ready_share(mid) > mid) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const double round = std::max(hi, 1e-12);
  ready_share(round);
  RoundRobin out;
  out.rates.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const double busy = p[j] * h[j] / round;
    out.busy += busy;
    out.lost += p[j] * sw[j] / round;
    out.rates[j] = std::min(1.0, busy / (jobs[j].sm_util * slow[j]));
  }
  return out;
}

void check(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("timeslice_rates: ") + what);
}

}  // namespace

TimeSliceRates timeslice_rates(std::span<const TimeSliceJob> jobs, const TimeSliceParams& p) {
  check(p.time_slice_us > 0.0, "time_slice_us must be > 0");
  check(p.switch_cost_us >= 0.0, "switch_cost_us must be >= 0");
  check(p.interference >= 0.0, "interference must be >= 0");
  const std::size_t n = jobs.size();
  TimeSliceRates out;
  if (n == 0) return out;
  double util_sum = 0.0;
  for (const TimeSliceJob& j : jobs) {
    check(j.sm_util > 0.0 && j.sm_util <= 1.0, "sm_util must be in (0, 1]");
    check(j.mean_kernel_us > 0.0, "mean_kernel_us must be > 0");
    util_sum += j.sm_util;
  }
  const double s = p.switch_cost_us;
  const double t = p.time_slice_us;

  std::vector<double> k(n), g(n), slow(n);
  std::vector<bool> continuous(n);
  std::vector<Holds> hold(n);
  for (std::size_t i = 0; i < n; ++i) {
    slow[i] = 1.0 + p.interference * (util_sum - jobs[i].sm_util);
    k[i] = jobs[i].mean_kernel_us * slow[i];
    g[i] = jobs[i].mean_kernel_us * (1.0 - jobs[i].sm_util) / jobs[i].sm_util;
    continuous[i] = g[i] <= 0.0;
    hold[i] = holds_of(k[i], t, p.distribution, continuous[i]);
  }

  // State of the iteration, per job: progress rate r, busy b, present q, switching-in w,
  // bursts per us x, holds per us v, mean hold hm, waiting a.
  std::vector<double> r(n, 1.0), b(n), q(n), w(n), x(n), v(n), hm(n), a(n), any(n), r_new(n);
  // Chance that nobody but i is present, and that i is still resident when its gap ends
  // (nobody else used the GPU meanwhile; exact for memoryless gaps).
  auto alone_and_resident = [&](std::size_t i, double& none, double& resident) {
    none = 1.0;
    double arrival_rate = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      none *= 1.0 - q[j];
      if (!continuous[j]) arrival_rate += 1.0 / g[j];
    }
    resident = continuous[i] ? 1.0 : std::exp(-g[i] * arrival_rate);
  };
  // Everything below is a pure function of r: w and a depend on each other, so they are
  // recomputed from zero with a few inner passes.
  auto derive = [&] {
    std::fill(w.begin(), w.end(), 0.0);
    std::fill(a.begin(), a.end(), 0.0);
    for (std::size_t j = 0; j < n; ++j) {
      if (continuous[j]) {
        b[j] = r[j] * slow[j];
        q[j] = 1.0;
      } else {
        x[j] = r[j] / (jobs[j].mean_kernel_us + g[j]);
        b[j] = x[j] * k[j];
        q[j] = std::min(1.0, 1.0 - x[j] * g[j]);
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      // Others present while j runs: they are waiting, not running, so condition on that.
      double none_while_running = 1.0;
      for (std::size_t m = 0; m < n; ++m) {
        if (m != j) none_while_running *= 1.0 - std::clamp((q[m] - b[m]) / (1.0 - b[m] + 1e-12), 0.0, 1.0);
      }
      any[j] = 1.0 - none_while_running;
      if (continuous[j]) {
        v[j] = b[j] / t;
        hm[j] = t;
      } else {
        const double holds_per_burst = 1.0 + (hold[j].count - 1.0) * any[j];
        v[j] = x[j] * holds_per_burst;
        hm[j] = k[j] / holds_per_burst;
      }
    }
    // Waiting episodes of j per us, each ending in a switch into j: its gap ends during another
    // job's hold, it finds the GPU idle with another context resident, or it is preempted.
    for (int pass = 0; pass < kInnerPasses; ++pass) {
    for (std::size_t j = 0; j < n; ++j) {
      double episodes;
      if (continuous[j]) {
        episodes = b[j] * any[j] / t;
      } else {
        double none, resident;
        alone_and_resident(j, none, resident);
        episodes = x[j] * (none * (1.0 - resident) + (hold[j].count - 1.0) * any[j]);
        for (std::size_t m = 0; m < n; ++m) {
          if (m == j || v[m] <= 0.0) continue;
          const double behind = std::min(1.0, a[m] * x[j] * (1.0 + (hold[j].count - 1.0) * any[j]) / v[m]);
          const double unit = hm[m] + w[m] / v[m];  // switch into m, then its hold
          episodes += v[m] * (1.0 - behind) * gap_ends_within(unit, g[j], p.distribution);
        }
      }
      w[j] = s * episodes;
    }
    for (std::size_t j = 0; j < n; ++j) a[j] = std::max(0.0, q[j] - b[j] - w[j]);
    }
  };

  // F(r): the rates implied by the state that r implies. The solution is its fixed point.
  auto evaluate = [&](const std::vector<double>& r_in, std::vector<double>& r_out) {
    r = r_in;
    derive();
  for (std::size_t i = 0; i < n; ++i) {
    double rate;
    if (continuous[i]) {
      double preempt_wait = s * any[i];
      for (std::size_t j = 0; j < n; ++j) {
        if (j != i) preempt_wait += q[j] * (s + hm[j]);
      }
      rate = 1.0 / (1.0 + preempt_wait / t) / slow[i];
    } else {
      const double holds_per_burst = 1.0 + (hold[i].count - 1.0) * any[i];
      double delayed = w[i];
      for (std::size_t j = 0; j < n; ++j) {
        if (j == i || v[j] <= 0.0) continue;
        // Holds of j that start while i waits delay i entirely; a hold under way when i's
        // gap ends delays it by the remainder.
        const double behind = std::min(1.0, a[j] * x[i] * holds_per_burst / v[j]);
        const double unit = hm[j] + w[j] / v[j];
        delayed += behind * v[j] * (s + hm[j]) +
                   (1.0 - behind) * v[j] * overrun(unit, g[i], p.distribution);
      }
      rate = std::max(kMinRate, 1.0 - delayed) * (jobs[i].mean_kernel_us + g[i]) / (k[i] + g[i]);
    }
    rate = std::min(rate, 1.0);
    r_out[i] = rate;
  }
  };
  auto residual = [&](const std::vector<double>& r_in, std::vector<double>& f) {
    evaluate(r_in, f);
    double worst = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      f[i] -= r_in[i];
      worst = std::max(worst, std::abs(f[i]));
    }
    return worst;
  };

  // Damped fixed-point iteration first; it converges in most regimes.
  std::vector<double> cur(n, 1.0), f(n), best = cur;
  double best_res = 1e300;
  int it = 0;
  for (; it < kMaxIterations; ++it) {
    const double res = residual(cur, f);
    if (res < best_res) best_res = res, best = cur;
    if (res < kTolerance) break;
    for (std::size_t i = 0; i < n; ++i) cur[i] += (1.0 - kDamping) * f[i];
  }
  // Heavy ping-pong makes the map expanding around its fixed point, where no damping helps:
  // finish with Newton's method (numerical Jacobian, backtracking on the residual).
  if (best_res >= kTolerance) {
    cur = best;
    std::vector<double> f2(n), trial(n);
    Eigen::MatrixXd jac(n, n);
    Eigen::VectorXd rhs(n);
    double res = residual(cur, f);
    for (int newton = 0; newton < kNewtonIterations && res >= kTolerance; ++newton, ++it) {
      for (std::size_t c = 0; c < n; ++c) {
        trial = cur;
        const double h = 1e-7 * std::max(1e-3, cur[c]);
        trial[c] -= h;  // r <= 1, so step down
        residual(trial, f2);
        for (std::size_t row = 0; row < n; ++row) jac(row, c) = (f[row] - f2[row]) / h;
      }
      for (std::size_t row = 0; row < n; ++row) rhs(row) = -f[row];
      const Eigen::VectorXd step = jac.fullPivLu().solve(rhs);
      double lambda = 1.0;
      bool improved = false;
      for (int back = 0; back < 30; ++back, lambda *= 0.5) {
        for (std::size_t i = 0; i < n; ++i) {
          trial[i] = std::clamp(cur[i] + lambda * step(i), kMinRate, 1.0);
        }
        const double trial_res = residual(trial, f2);
        if (trial_res < res) {
          cur = trial, f = f2, res = trial_res, improved = true;
          break;
        }
      }
      if (!improved) break;
    }
    if (res < best_res) best_res = res, best = cur;
  }
  r = best;
  // A rate pinned at the floor is a degenerate fixed point (delay >= 1), not a solution.
  const bool degenerate = *std::min_element(best.begin(), best.end()) <= 10.0 * kMinRate;
  if (best_res > kAcceptableResidual || degenerate) {
    const RoundRobin rr = round_robin(jobs, g, slow, hold, continuous, s, t);
    out.rates = rr.rates;
    out.busy_fraction = rr.busy;
    out.switch_fraction = rr.lost;
    out.iterations = it + 1;
    out.residual = best_res;
    out.round_robin = true;
    return out;
  }
  derive();
  double busy = 0.0, lost = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    busy += b[j];
    lost += w[j];
  }
  if (busy + lost > 1.0) {
    const double scale = 1.0 / (busy + lost);
    for (double& rate : r) rate *= scale;
    busy *= scale;
    lost *= scale;
  }
  // Near saturation the fixed point's independence assumptions break down (it can even land on
  // a wrong branch), while the round-robin model's single assumption (the GPU never idles)
  // becomes true: hand over to it progressively as the idle share falls below kSaturatedIdle.
  const double idle = 1.0 - busy - lost;
  if (n > 1 && idle < kSaturatedIdle) {
    const RoundRobin rr = round_robin(jobs, g, slow, hold, continuous, s, t);
    const double weight = std::clamp(1.0 - idle / kSaturatedIdle, 0.0, 1.0);
    for (std::size_t j = 0; j < n; ++j) r[j] = weight * rr.rates[j] + (1.0 - weight) * r[j];
    busy = weight * rr.busy + (1.0 - weight) * busy;
    lost = weight * rr.lost + (1.0 - weight) * lost;
    out.round_robin = weight > 0.5;
  }
  out.rates = r;
  out.busy_fraction = busy;
  out.switch_fraction = lost;
  out.iterations = it + 1;
  out.residual = best_res;
  return out;
}

}  // namespace gpumux
