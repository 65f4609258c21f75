#include "models/timeslice/validation_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "models/timeslice/timeslice_rates.h"

namespace gpumux {
namespace {

double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

std::vector<GridCase> make_validation_grid(int count, std::uint64_t seed,
                                           BurstDistribution distribution) {
  std::mt19937_64 rng(seed);
  std::vector<GridCase> grid;
  for (int c = 0; c < count; ++c) {
    GridCase gc;
    const int n = 1 + static_cast<int>(uniform(rng) * 8.0);
    for (int i = 0; i < n; ++i) {
      TimeSliceJob j;
      j.sm_util = uniform(rng) < 0.2 ? 1.0 : 0.05 + 0.95 * uniform(rng);
      j.mean_kernel_us = 10.0 * std::pow(1000.0, uniform(rng));
      gc.jobs.push_back(j);
    }
    gc.params.switch_cost_us = 200.0 * uniform(rng);
    gc.params.distribution = distribution;
    grid.push_back(gc);
  }
  return grid;
}

GridError compare_on_grid(const std::vector<GridCase>& grid, const ReferenceConfig& reference) {
  GridError e;
  for (std::size_t c = 0; c < grid.size(); ++c) {
    ReferenceConfig cfg = reference;
    cfg.params = grid[c].params;
    cfg.seed = reference.seed + c;
    const ReferenceResult ref = simulate_reference(grid[c].jobs, cfg);
    const TimeSliceRates fast = timeslice_rates(grid[c].jobs, grid[c].params);
    e.add_case(static_cast<int>(c), ref.rates, fast.rates);
    e.max_abs_busy_error =
        std::max(e.max_abs_busy_error, std::abs(ref.busy_fraction - fast.busy_fraction));
    e.max_abs_switch_error =
        std::max(e.max_abs_switch_error, std::abs(ref.switch_fraction - fast.switch_fraction));
  }
  return e;
}

std::string describe(const GridCase& c) {
  std::string s;
  char buf[96];
  std::snprintf(buf, sizeof buf,
                "switch %.1f us, slice %.0f us, jobs (sm_util/kernel us):", c.params.switch_cost_us,
                c.params.time_slice_us);
  s += buf;
  for (const TimeSliceJob& j : c.jobs) {
    std::snprintf(buf, sizeof buf, " %.3f/%.1f", j.sm_util, j.mean_kernel_us);
    s += buf;
  }
  return s;
}

}  // namespace gpumux
