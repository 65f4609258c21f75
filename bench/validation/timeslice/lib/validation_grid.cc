#include "bench/validation/timeslice/lib/validation_grid.h"

#include <cstdio>

#include "models/timeslice/timeslice_rates.h"

namespace gpumux {
namespace {

// The time-slicing side of the grid driver (bench/validation/lib/grid_driver.h).
struct TimeSliceGrid {
  using Error = GridError;
  static ReferenceResult reference(const std::vector<TimeSliceJob>& jobs,
                                   const ReferenceConfig& config) {
    return simulate_reference(jobs, config);
  }
  static TimeSliceRates fast(const std::vector<TimeSliceJob>& jobs, const TimeSliceParams& p) {
    return timeslice_rates(jobs, p);
  }
  static void add_fractions(GridError& e, const ReferenceResult& ref, const TimeSliceRates& fast) {
    e.max_abs_switch_error =
        std::max(e.max_abs_switch_error, std::abs(ref.switch_fraction - fast.switch_fraction));
  }
};

}  // namespace

std::vector<GridCase> make_validation_grid(int count, std::uint64_t seed,
                                           BurstDistribution distribution) {
  return random_grid<GridCase>(
      count, seed,
      [](GridDraws& d) {
        TimeSliceJob j;
        j.sm_util = d.duty();
        j.mean_kernel_us = d.kernel_us();
        return j;
      },
      [distribution](GridDraws& d, GridCase& c) {
        c.params.switch_cost_us = 200.0 * d.uniform();
        c.params.distribution = distribution;
      });
}

GridError compare_on_grid(const std::vector<GridCase>& grid, const ReferenceConfig& reference) {
  return compare_rates_on_grid<TimeSliceGrid>(grid, reference);
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
