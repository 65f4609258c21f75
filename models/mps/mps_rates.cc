#include "models/mps/mps_rates.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gpumux {
namespace {

constexpr int kMaxIterations = 500;
constexpr double kTolerance = 1e-9;
constexpr double kMinRate = 1e-9;

// Standard-normal points z_k = -4 + k / 4 and weights exp(-z_k^2 / 2) (normalised at use).
constexpr int kNormalPoints = 33;
struct NormalTable {
  double z[kNormalPoints];
  double w[kNormalPoints];
};
const NormalTable& normal_table() {
  static const NormalTable table = [] {
    NormalTable t{};
    for (int k = 0; k < kNormalPoints; ++k) {
      t.z[k] = -4.0 + 0.25 * k;
      t.w[k] = std::exp(-0.5 * t.z[k] * t.z[k]);
    }
    return t;
  }();
  return table;
}

void check(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("mps_rates: ") + what);
}

// Visits every on/off state of the clients (d[k], p[k]) that has nonzero probability, calling
// leaf(x, probability) with x the summed demand of those on.
template <class Leaf>
void enumerate(const double* d, const double* p, std::size_t m, double x, double prob, Leaf& leaf) {
  if (m == 0) {
    leaf(x, prob);
    return;
  }
  if (p[0] < 1.0) enumerate(d + 1, p + 1, m - 1, x, prob * (1.0 - p[0]), leaf);
  if (p[0] > 0.0) enumerate(d + 1, p + 1, m - 1, x + d[0], prob * p[0], leaf);
}

// The same visit for many clients, x approximated by a normal distribution with the same mean
// and variance (a sum of many independent terms), integrated on kNormalPoints points between
// -4 and +4 standard deviations (trapezoid rule: very accurate for Gaussian integrands). Mass
// below x = 0 is put at 0.
template <class Leaf>
void normal_approximation(const double* d, const double* p, std::size_t m, Leaf& leaf) {
  double mean = 0.0, variance = 0.0;
  for (std::size_t k = 0; k < m; ++k) {
    mean += p[k] * d[k];
    variance += p[k] * (1.0 - p[k]) * d[k] * d[k];
  }
  if (variance <= 0.0) {
    leaf(mean, 1.0);
    return;
  }
  const double sd = std::sqrt(variance);
  const NormalTable& t = normal_table();
  double total = 0.0;
  for (int k = 0; k < kNormalPoints; ++k) total += t.w[k];
  for (int k = 0; k < kNormalPoints; ++k) leaf(std::max(0.0, mean + sd * t.z[k]), t.w[k] / total);
}

// Expectation over the on/off states of m clients: exact up to max_exact clients.
template <class Leaf>
void expect(const double* d, const double* p, std::size_t m, std::size_t max_exact, Leaf& leaf) {
  if (m <= max_exact) {
    enumerate(d, p, m, 0.0, 1.0, leaf);
  } else {
    normal_approximation(d, p, m, leaf);
  }
}

// Fixed kernels and gaps (the lock-step form, see mps_rates.h). Blocks hold their SMs until
// they end (no preemption), so kernels that do not fit beside each other take turns in launch
// order instead of sharing SMs: a full-GPU 20 us kernel beside a busy full-GPU 2 ms one runs
// once per 2 ms (measured on an H200: 0.015-0.025), where proportional sharing gives it half the
// GPU. Client j's kernel lasts K_j = k_j / c_j alone under its cap and covers d_j K_j of SM
// time; its own chain is A_j = K_j + g_j. If all demands fit side by side (sum d <= 1) nobody
// waits; if the SM time asked for fits (sum d K / A <= 1), fixed phases interleave and nobody
// waits either; else the round R solves sum_j d_j K_j min(1 / A_j, 1 / R) = 1 and a client
// whose own chain is shorter than R takes one kernel per round. Interference stretches a
// kernel by 1 + alpha x, x the SM share held on average by the others that can run beside it
// (a pair whose demands exceed the GPU takes turns and never overlaps).
MpsLoad lockstep_rates(std::span<const MpsJob> jobs, double alpha, double launch_gap_us,
                       std::span<double> rates, MpsWorkspace& ws) {
  const std::size_t n = jobs.size();
  std::vector<double>& kernel = ws.speed;   // K_j, stretched
  std::vector<double>& gap = ws.running;    // g_j
  std::vector<double>& held = ws.prob;      // d_j x share of time a kernel of j runs
  double fit = 0.0;
  for (std::size_t j = 0; j < n; ++j) fit += jobs[j].demand();
  for (std::size_t j = 0; j < n; ++j) {
    const double k = jobs[j].mean_kernel_us;
    gap[j] = std::max(launch_gap_us, k * (1.0 - jobs[j].sm_util) / jobs[j].sm_util);
    kernel[j] = k / jobs[j].cap_speed();
    held[j] = jobs[j].demand() * kernel[j] / (kernel[j] + gap[j]);
  }
  double area = 0.0, total = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    // Contention only from kernels that can run beside this one: a pair that does not fit
    // side by side takes turns and never overlaps.
    double beside = 0.0;
    for (std::size_t m = 0; m < n; ++m) {
      if (m != j && jobs[j].demand() + jobs[m].demand() <= 1.0 + 1e-9) beside += held[m];
    }
    ws.demand[j] = kernel[j] * (1.0 + alpha * beside);
    area += jobs[j].demand() * ws.demand[j] / (ws.demand[j] + gap[j]);
    total += jobs[j].demand() * ws.demand[j];
  }
  double round = 0.0;
  if (fit > 1.0 + 1e-9 && area > 1.0) {
    double lo = 0.0, hi = total;
    for (int b = 0; b < 100 && hi - lo > 1e-9 * hi; ++b) {
      const double mid = 0.5 * (lo + hi);
      double used = 0.0;
      for (std::size_t j = 0; j < n; ++j) {
        used += jobs[j].demand() * ws.demand[j] / std::max(ws.demand[j] + gap[j], mid);
      }
      (used > 1.0 ? lo : hi) = mid;
    }
    round = hi;
  }
  MpsLoad out;
  double idle = 1.0, sm = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double cycle = std::max(ws.demand[j] + gap[j], round);
    const double alone = jobs[j].mean_kernel_us + gap[j];
    rates[j] = std::clamp(alone / cycle, kMinRate, 1.0);
    idle *= 1.0 - ws.demand[j] / cycle;
    sm += jobs[j].demand() * ws.demand[j] / cycle;
  }
  out.busy_fraction = round > 0.0 ? 1.0 : 1.0 - idle;
  out.sm_fraction = std::min({sm, 1.0, out.busy_fraction});
  out.iterations = 1;
  return out;
}

}  // namespace

void MpsWorkspace::resize(std::size_t jobs) {
  for (auto* v : {&speed, &running, &demand, &prob}) {
    if (v->size() < jobs) v->resize(jobs);
  }
  if (gapped.size() < jobs) gapped.resize(jobs);
}

MpsLoad mps_rates(std::span<const MpsJob> jobs, const MpsParams& params, std::span<double> rates,
                  MpsWorkspace& ws, std::size_t max_exact_jobs) {
  check(params.interference >= 0.0, "interference must be >= 0");
  const std::size_t n = jobs.size();
  check(rates.size() == n, "rates.size() must equal jobs.size()");
  for (const MpsJob& j : jobs) {
    check(j.sm_util > 0.0 && j.sm_util <= 1.0, "sm_util must be in (0, 1]");
    check(j.sm_share > 0.0 && j.sm_share <= 1.0, "sm_share must be in (0, 1]");
    check(j.active_thread_fraction > 0.0 && j.active_thread_fraction <= 1.0,
          "active_thread_fraction must be in (0, 1]");
    check(j.mean_kernel_us > 0.0, "mean_kernel_us must be > 0");
  }
  check(params.launch_gap_us >= 0.0, "launch_gap_us must be >= 0");
  MpsLoad out;
  if (n == 0) return out;
  ws.resize(n);
  const double alpha = params.interference;
  if (params.bursts == MpsBursts::kFixed) {
    return lockstep_rates(jobs, alpha, params.launch_gap_us, rates, ws);
  }
  if (params.launch_gap_us > 0.0) {
    // Apply the launch gap as a duty cycle: the same rates, relative to alone with the gap.
    for (std::size_t j = 0; j < n; ++j) {
      const double k = jobs[j].mean_kernel_us;
      const double g = k * (1.0 - jobs[j].sm_util) / jobs[j].sm_util;
      if (g < params.launch_gap_us) {
        std::copy(jobs.begin(), jobs.end(), ws.gapped.begin());
        for (std::size_t i = 0; i < n; ++i) {
          MpsJob& m = ws.gapped[i];
          const double gi = m.mean_kernel_us * (1.0 - m.sm_util) / m.sm_util;
          if (gi < params.launch_gap_us) {
            m.sm_util = m.mean_kernel_us / (m.mean_kernel_us + params.launch_gap_us);
          }
        }
        MpsParams rest = params;
        rest.launch_gap_us = 0.0;
        return mps_rates(std::span<const MpsJob>(ws.gapped.data(), n), rest, rates, ws,
                         max_exact_jobs);
      }
    }
  }
  // Per client: mean kernel speed v (from its cap: alone) and probability of running. ws.demand
  // and ws.prob hold the OTHER clients of the client being evaluated.
  std::vector<double>& v = ws.speed;
  std::vector<double>& running = ws.running;
  // Probability of running; the kernel length cancels: (k / v) / (k / v + k (1 - u) / u).
  auto prob_of = [&](std::size_t j, double speed) {
    const double u = jobs[j].sm_util;
    if (u >= 1.0) return 1.0;
    return (1.0 / speed) / (1.0 / speed + (1.0 - u) / u);
  };
  for (std::size_t j = 0; j < n; ++j) {
    v[j] = jobs[j].cap_speed();
    running[j] = prob_of(j, v[j]);
  }
  // Exact enumeration when all clients fit max_exact_jobs; each client sees n - 1 others.
  const std::size_t exact_others = n <= max_exact_jobs ? n - 1 : 0;

  for (int it = 0; it < kMaxIterations && n > 1; ++it) {
    double change = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double di = jobs[i].demand();
      const double ci = jobs[i].cap_speed();
      std::size_t m = 0;
      for (std::size_t j = 0; j < n; ++j) {
        if (j == i) continue;
        ws.demand[m] = jobs[j].demand();
        ws.prob[m] = running[j];
        ++m;
      }
      double next = 0.0;
      auto leaf = [&](double x, double prob) {
        const double f = 1.0 / std::max(1.0, di + x);
        next += prob * ci * f / (1.0 + alpha * x * f);
      };
      expect(ws.demand.data(), ws.prob.data(), m, exact_others, leaf);
      change = std::max(change, std::abs(next - v[i]));
      v[i] = next;
      running[i] = prob_of(i, next);
    }
    out.iterations = it + 1;
    if (change < kTolerance) break;
  }

  for (std::size_t i = 0; i < n; ++i) {
    const double u = jobs[i].sm_util;
    // Per unit of kernel work: alone k + g = 1 / u, shared 1 / v + (1 - u) / u.
    rates[i] = std::clamp((1.0 / u) / (1.0 / v[i] + (1.0 - u) / u), kMinRate, 1.0);
  }
  double nobody = 1.0;
  for (std::size_t j = 0; j < n; ++j) {
    nobody *= 1.0 - running[j];
    ws.demand[j] = jobs[j].demand();
    ws.prob[j] = running[j];
  }
  out.busy_fraction = 1.0 - nobody;
  double sm = 0.0;
  auto sm_leaf = [&](double x, double prob) { sm += prob * std::min(1.0, x); };
  expect(ws.demand.data(), ws.prob.data(), n, n <= max_exact_jobs ? n : 0, sm_leaf);
  // SM time needs a kernel running (the normal approximation can overshoot by a hair).
  out.sm_fraction = std::min(sm, out.busy_fraction);
  return out;
}

MpsRates mps_rates(std::span<const MpsJob> jobs, const MpsParams& params) {
  MpsRates out;
  out.rates.resize(jobs.size());
  MpsWorkspace ws;
  const MpsLoad load = mps_rates(jobs, params, out.rates, ws);
  out.busy_fraction = load.busy_fraction;
  out.sm_fraction = load.sm_fraction;
  out.iterations = load.iterations;
  return out;
}

}  // namespace gpumux
