#include "models/mps/mps_rates.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gpumux {
namespace {

constexpr int kMaxIterations = 500;
constexpr double kTolerance = 1e-10;
constexpr double kMinRate = 1e-9;

void check(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("mps_rates: ") + what);
}

// Visits every on/off state of the clients (d[k], p[k]) that has nonzero probability, calling
// leaf(x, probability) with x the summed demand of those on.
template <class Leaf>
void enumerate(const double* d, const double* p, std::size_t m, double x, double prob,
               Leaf& leaf) {
  if (m == 0) {
    leaf(x, prob);
    return;
  }
  if (p[0] < 1.0) enumerate(d + 1, p + 1, m - 1, x, prob * (1.0 - p[0]), leaf);
  if (p[0] > 0.0) enumerate(d + 1, p + 1, m - 1, x + d[0], prob * p[0], leaf);
}

// The same visit for many clients, on a grid of 1/kMpsGridPerGpu: the distribution of x is
// built by convolution (each client's demand split linearly between two grid points).
template <class Leaf>
void convolve(const double* d, const double* p, std::size_t m, MpsWorkspace& ws, Leaf& leaf) {
  double total = 0.0;
  for (std::size_t k = 0; k < m; ++k) total += d[k];
  const std::size_t points = static_cast<std::size_t>(std::ceil(total * kMpsGridPerGpu)) + 2;
  ws.resize(0, points);
  std::vector<double>& dist = ws.dist;
  std::vector<double>& next = ws.next;
  std::fill(dist.begin(), dist.begin() + points, 0.0);
  dist[0] = 1.0;
  std::size_t top = 0;  // highest point with mass
  for (std::size_t k = 0; k < m; ++k) {
    const double shift = d[k] * kMpsGridPerGpu;
    const std::size_t q = static_cast<std::size_t>(shift);
    const double r = shift - static_cast<double>(q);
    const std::size_t new_top = std::min(points - 1, top + q + 1);
    std::fill(next.begin(), next.begin() + new_top + 1, 0.0);
    for (std::size_t b = 0; b <= top; ++b) {
      const double mass = dist[b];
      if (mass == 0.0) continue;
      next[b] += (1.0 - p[k]) * mass;
      next[std::min(points - 1, b + q)] += p[k] * mass * (1.0 - r);
      next[std::min(points - 1, b + q + 1)] += p[k] * mass * r;
    }
    top = new_top;
    std::copy(next.begin(), next.begin() + top + 1, dist.begin());
  }
  for (std::size_t b = 0; b <= top; ++b) {
    if (dist[b] > 0.0) leaf(static_cast<double>(b) / kMpsGridPerGpu, dist[b]);
  }
}

// Expectation over the on/off states of m clients: exact up to max_exact clients.
template <class Leaf>
void expect(const double* d, const double* p, std::size_t m, MpsWorkspace& ws,
            std::size_t max_exact, Leaf& leaf) {
  if (m <= max_exact) {
    enumerate(d, p, m, 0.0, 1.0, leaf);
  } else {
    convolve(d, p, m, ws, leaf);
  }
}

}  // namespace

void MpsWorkspace::resize(std::size_t jobs, std::size_t grid_points) {
  for (auto* v : {&speed, &running, &demand, &prob}) {
    if (v->size() < jobs) v->resize(jobs);
  }
  for (auto* v : {&dist, &next}) {
    if (v->size() < grid_points) v->resize(grid_points);
  }
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
  MpsLoad out;
  if (n == 0) return out;
  ws.resize(n);
  const double alpha = params.interference;
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
      expect(ws.demand.data(), ws.prob.data(), m, ws, exact_others, leaf);
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
  expect(ws.demand.data(), ws.prob.data(), n, ws, n <= max_exact_jobs ? n : 0, sm_leaf);
  out.sm_fraction = sm;
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
