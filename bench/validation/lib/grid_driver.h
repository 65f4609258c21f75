// One driver for the validation grids of the fast sharing models against their reference
// simulators (bench/validation/<model>/lib/): the random grids of job mixes on which each fast
// rate model is compared with its reference, and the request-latency grids on which the
// service replica's schedules are compared with the references driven by requests. Each model
// supplies only what differs: how a job and a case are drawn, and how each side is run.
// Linked by tests and bench only, never by the gpumux binary.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "sim/core/service.h"
#include "sim/core/service_gpu_context.h"
#include "sim/services/latency_histogram.h"
#include "sim/services/service_replica.h"

namespace gpumux {

// How far a fast rate model's job rates lie from a reference simulator's over a grid.
struct RateErrorSummary {
  double max_abs_rate_error = 0.0;
  double mean_abs_rate_error = 0.0;
  int worst_case = -1;  // index into the grid
  int worst_job = -1;
  double worst_reference = 0.0, worst_fast = 0.0;
  int rates_compared = 0;

  // Adds one case's rates (same job order in both). Precondition: equal sizes.
  void add_case(int case_index, std::span<const double> reference, std::span<const double> fast) {
    for (std::size_t i = 0; i < reference.size(); ++i) {
      const double err = std::abs(reference[i] - fast[i]);
      sum_abs_ += err;
      ++rates_compared;
      if (err > max_abs_rate_error) {
        max_abs_rate_error = err;
        worst_case = case_index;
        worst_job = static_cast<int>(i);
        worst_reference = reference[i];
        worst_fast = fast[i];
      }
    }
    if (rates_compared > 0) mean_abs_rate_error = sum_abs_ / rates_compared;
  }

 private:
  double sum_abs_ = 0.0;
};

// The draws every rate grid shares, from one generator: uniform in [0, 1), and the job
// features both grids draw alike.
class GridDraws {
 public:
  explicit GridDraws(std::uint64_t seed) : rng_(seed) {}
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  // A duty cycle: one job in five at exactly 1 (the never-idle limit), else in [0.05, 1].
  double duty() { return uniform() < 0.2 ? 1.0 : 0.05 + 0.95 * uniform(); }
  // A mean kernel, log-uniform in [10 us, 10 ms].
  double kernel_us() { return 10.0 * std::pow(1000.0, uniform()); }

 private:
  std::mt19937_64 rng_;
};

// `count` cases, deterministic in `seed`: each with 1-8 jobs drawn by draw_job(draws), then
// finished by draw_case(draws, case) (its parameters).
template <typename Case, typename DrawJob, typename DrawCase>
std::vector<Case> random_grid(int count, std::uint64_t seed, DrawJob draw_job, DrawCase draw_case) {
  GridDraws draws(seed);
  std::vector<Case> grid;
  for (int c = 0; c < count; ++c) {
    Case gc;
    const int n = 1 + static_cast<int>(draws.uniform() * 8.0);
    for (int i = 0; i < n; ++i) gc.jobs.push_back(draw_job(draws));
    draw_case(draws, gc);
    grid.push_back(gc);
  }
  return grid;
}

// Runs every case through the reference (`reference` settings, its params replaced by the
// case's, seed + case index) and through the fast model, and summarises the differences:
// rates, and the largest difference in busy fraction. `Grid` supplies
//   Error (a RateErrorSummary with max_abs_busy_error), and the static functions
//   reference(jobs, config), fast(jobs, params) (results with rates and busy_fraction) and
//   add_fractions(error, reference_result, fast_result) (the model's other fractions).
template <typename Grid, typename Case, typename Config>
typename Grid::Error compare_rates_on_grid(const std::vector<Case>& grid, const Config& reference) {
  typename Grid::Error e;
  for (std::size_t c = 0; c < grid.size(); ++c) {
    Config config = reference;
    config.params = grid[c].params;
    config.seed = reference.seed + c;
    const auto ref = Grid::reference(grid[c].jobs, config);
    const auto fast = Grid::fast(grid[c].jobs, grid[c].params);
    e.add_case(static_cast<int>(c), ref.rates, fast.rates);
    e.max_abs_busy_error =
        std::max(e.max_abs_busy_error, std::abs(ref.busy_fraction - fast.busy_fraction));
    Grid::add_fractions(e, ref, fast);
  }
  return e;
}

// Calls visit(point) for every `stride`-th point (the first, then every stride-th after it) of
// the product of `axes`, in the order nested loops over them visit it, the first axis
// outermost: point[k] is a value of axes[k]. A switch is the axis {0, 1}.
template <typename Visit>
void for_each_grid_point(const std::vector<std::vector<double>>& axes, int stride, Visit visit) {
  std::vector<std::size_t> at(axes.size(), 0);
  std::vector<double> point(axes.size());
  for (const auto& axis : axes) {
    if (axis.empty()) return;
  }
  for (long index = 0;; ++index) {
    if (index % std::max(1, stride) == 0) {
      for (std::size_t k = 0; k < axes.size(); ++k) point[k] = axes[k][at[k]];
      visit(point);
    }
    std::size_t k = axes.size();
    while (k > 0 && ++at[k - 1] == axes[k - 1].size()) at[--k] = 0;
    if (k == 0) return;
  }
}

// The service of a request-latency case: Poisson arrivals at `rate_per_us`, one request per
// batch, each taking `service_us` alone.
inline ServiceSpec poisson_requests(double rate_per_us, double service_us) {
  ServiceSpec spec;
  spec.arrival = ArrivalKind::kPoisson;
  spec.rate_per_s = rate_per_us * 1e6;
  spec.service_ms = service_us / 1000.0;
  spec.max_batch = 1;
  return spec;
}

struct RequestLatencyPercentiles {
  double p50_us = 0, p95_us = 0, p99_us = 0;
  double served = 0;
  double unfinished = 0;  // arrived, still waiting or in service at the window's end

  // More than 1% of the requests still held at the end: the service cannot keep up with its
  // arrivals beside the co-runner (its queue grows with the window, so its percentiles are
  // the window's, not the service's). A stable queue at load <= 0.9 holds a few dozen.
  bool overloaded() const { return unfinished > 0.01 * (served + unfinished); }
};

struct RequestLatencyComparison {
  RequestLatencyPercentiles reference, fast;
  std::int64_t reference_events = 0;
};

// Pools the replications of one case: the reference's latencies (exact nearest-rank
// percentiles at the end) and the replica's histograms.
class RequestLatencyPool {
 public:
  void add_reference(const std::vector<double>& latencies_us, std::int64_t unfinished,
                     std::int64_t events);
  void add_fast(const RequestLevelReplica& replica);
  RequestLatencyComparison finish();

 private:
  std::vector<double> reference_;
  LatencyHistogram fast_;
  RequestLatencyComparison out_;
};

// One case of a request-latency grid, `replications` times (seeds seed, seed + 1, ...):
// run_reference(seed) simulates the reference driven by requests (a result with
// request_latencies_us, requests_unfinished and events); the fast side is the request-level
// replica of `spec` in `context` over [0, window_us], seeded seed + 7. Pooled.
template <typename RunReference>
RequestLatencyComparison replicate_request_latency(const ServiceSpec& spec,
                                                   const ServiceGpuContext& context,
                                                   double window_us, std::uint64_t seed,
                                                   int replications, RunReference run_reference) {
  RequestLatencyPool pool;
  for (int k = 0; k < std::max(1, replications); ++k) {
    const std::uint64_t s = seed + static_cast<std::uint64_t>(k);
    const auto reference = run_reference(s);
    pool.add_reference(reference.request_latencies_us, reference.requests_unfinished,
                       reference.events);
    RequestLevelReplica replica(spec, 0.0, s + 7);
    replica.set_context(0.0, context);
    replica.set_rate(0.0, 1.0);
    replica.end(window_us);
    pool.add_fast(replica);
  }
  return pool.finish();
}

}  // namespace gpumux
