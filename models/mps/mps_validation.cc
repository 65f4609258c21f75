#include "models/mps/mps_validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "models/mps/mps_rates.h"

namespace gpumux {
namespace {

double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

std::vector<MpsGridCase> make_mps_grid(int count, std::uint64_t seed, double interference,
                                       MpsBursts bursts) {
  std::mt19937_64 rng(seed);
  std::vector<MpsGridCase> grid;
  for (int c = 0; c < count; ++c) {
    MpsGridCase gc;
    const int n = 1 + static_cast<int>(uniform(rng) * 8.0);
    for (int i = 0; i < n; ++i) {
      MpsJob j;
      j.sm_util = uniform(rng) < 0.2 ? 1.0 : 0.05 + 0.95 * uniform(rng);
      j.sm_share = 0.05 + 0.95 * uniform(rng);
      j.active_thread_fraction = uniform(rng) < 0.5 ? 1.0 : 0.25 + 0.75 * uniform(rng);
      j.mean_kernel_us = 10.0 * std::pow(1000.0, uniform(rng));
      gc.jobs.push_back(j);
    }
    gc.params.interference = interference;
    gc.params.bursts = bursts;
    grid.push_back(gc);
  }
  return grid;
}

MpsGridError compare_mps_on_grid(const std::vector<MpsGridCase>& grid,
                                 const MpsReferenceConfig& reference) {
  MpsGridError e;
  for (std::size_t c = 0; c < grid.size(); ++c) {
    MpsReferenceConfig cfg = reference;
    cfg.params = grid[c].params;
    cfg.seed = reference.seed + c;
    const MpsReferenceResult ref = simulate_mps_reference(grid[c].jobs, cfg);
    const MpsRates fast = mps_rates(grid[c].jobs, grid[c].params);
    e.add_case(static_cast<int>(c), ref.rates, fast.rates);
    e.max_abs_busy_error =
        std::max(e.max_abs_busy_error, std::abs(ref.busy_fraction - fast.busy_fraction));
    e.max_abs_sm_error = std::max(e.max_abs_sm_error, std::abs(ref.sm_fraction - fast.sm_fraction));
  }
  return e;
}

std::string describe(const MpsGridCase& c) {
  std::string s;
  char buf[128];
  std::snprintf(buf, sizeof buf,
                "interference %.2f, jobs (sm_util/sm_share/atf/kernel us):", c.params.interference);
  s += buf;
  for (const MpsJob& j : c.jobs) {
    std::snprintf(buf, sizeof buf, " %.3f/%.3f/%.2f/%.1f", j.sm_util, j.sm_share,
                  j.active_thread_fraction, j.mean_kernel_us);
    s += buf;
  }
  return s;
}

}  // namespace gpumux
