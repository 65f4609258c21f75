#include "models/mps/mps_rates.h"

#include "models/interposition.h"

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

// Block-level allocation (MpsSmAllocation::kBlocks, see mps_rates.h). Blocks hold their SMs until they end (no
// preemption), so kernels that cannot fit beside each other (summed demands above the GPU) take
// turns in launch order instead of sharing SMs: a 20 us kernel beside a busy full-GPU 2 ms one
// runs only in the other's gaps (measured on an H200: 0.015-0.025), where sharing SMs in
// proportion would give it about half. The interposition form (models/interposition.h) with no
// switch cost gives the cycles; a kernel that cannot fit beside another blocks it for its whole
// length. Interference stretches a kernel by 1 + alpha x, x the SM share held on average by the
// others that can run beside it (a pair that does not fit takes turns and never overlaps).
MpsLoad block_rates(std::span<const MpsJob> jobs, double alpha, double launch_gap_us,
                       std::span<double> rates, MpsWorkspace& ws) {
  const std::size_t n = jobs.size();
  std::vector<double>& gap = ws.running;  // g_j
  std::vector<double>& held = ws.prob;    // d_j x share of time a kernel of j runs
  for (std::size_t j = 0; j < n; ++j) {
    const double k = jobs[j].mean_kernel_us;
    gap[j] = std::max(launch_gap_us, k * (1.0 - jobs[j].sm_util) / jobs[j].sm_util);
    const double kernel = k / jobs[j].cap_speed();
    held[j] = jobs[j].demand() * kernel / (kernel + gap[j]);
  }
  auto fits_beside = [&](std::size_t j, std::size_t m) {
    return jobs[j].demand() + jobs[m].demand() <= 1.0 + 1e-9;
  };
  for (std::size_t j = 0; j < n; ++j) {
    double beside = 0.0;
    for (std::size_t m = 0; m < n; ++m) {
      if (m != j && fits_beside(j, m)) beside += held[m];
    }
    const double kernel = jobs[j].mean_kernel_us / jobs[j].cap_speed() * (1.0 + alpha * beside);
    ws.interposition[j] = InterpositionJob{kernel + gap[j], gap[j], kernel, 1.0};
  }
  MpsLoad out;
  out.iterations = interposition_cycles(
      std::span<const InterpositionJob>(ws.interposition.data(), n),
      [&](std::size_t j, std::size_t m) {
        // The part of j's blocks that cannot start beside m's kernel waits for it (a second
        // wave); all of them when m holds the whole GPU.
        const double over = jobs[j].demand() + jobs[m].demand() - 1.0;
        return over <= 1e-9 ? 0.0 : std::min(1.0, over / jobs[j].demand());
      },
      0.0,
      std::span<double>(ws.speed.data(), n), ws.solver);
  double idle = 1.0, sm = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double cycle = ws.speed[j];
    const double kernel = ws.interposition[j].turn_us;
    rates[j] = std::clamp((jobs[j].mean_kernel_us + gap[j]) / cycle, kMinRate, 1.0);
    idle *= 1.0 - std::min(1.0, kernel / cycle);
    sm += jobs[j].demand() * kernel / cycle;
  }
  out.busy_fraction = 1.0 - idle;
  out.sm_fraction = std::min({sm, 1.0, out.busy_fraction});
  return out;
}

}  // namespace

void MpsWorkspace::resize(std::size_t jobs) {
  for (auto* v : {&speed, &running, &demand, &prob}) {
    if (v->size() < jobs) v->resize(jobs);
  }
  if (gapped.size() < jobs) gapped.resize(jobs);
  if (interposition.size() < jobs) interposition.resize(jobs);
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
  if (params.allocation == MpsSmAllocation::kBlocks) {
    return block_rates(jobs, alpha, params.launch_gap_us, rates, ws);
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
