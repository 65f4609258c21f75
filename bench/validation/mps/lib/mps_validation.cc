#include "bench/validation/mps/lib/mps_validation.h"

#include <cstdio>

#include "models/mps/mps_rates.h"

namespace gpumux {
namespace {

// The MPS side of the grid driver (bench/validation/lib/grid_driver.h).
struct MpsGrid {
  using Error = MpsGridError;
  static MpsReferenceResult reference(const std::vector<MpsJob>& jobs,
                                      const MpsReferenceConfig& config) {
    return simulate_mps_reference(jobs, config);
  }
  static MpsRates fast(const std::vector<MpsJob>& jobs, const MpsParams& p) {
    return mps_rates(jobs, p);
  }
  static void add_fractions(MpsGridError& e, const MpsReferenceResult& ref, const MpsRates& fast) {
    e.max_abs_sm_error = std::max(e.max_abs_sm_error, std::abs(ref.sm_fraction - fast.sm_fraction));
  }
};

}  // namespace

std::vector<MpsGridCase> make_mps_grid(int count, std::uint64_t seed, double interference,
                                       MpsBursts bursts) {
  return random_grid<MpsGridCase>(
      count, seed,
      [](GridDraws& d) {
        MpsJob j;
        j.sm_util = d.duty();
        j.sm_share = 0.05 + 0.95 * d.uniform();
        j.active_thread_fraction = d.uniform() < 0.5 ? 1.0 : 0.25 + 0.75 * d.uniform();
        j.mean_kernel_us = d.kernel_us();
        return j;
      },
      [interference, bursts](GridDraws&, MpsGridCase& c) {
        c.params.interference = interference;
        c.params.bursts = bursts;
      });
}

MpsGridError compare_mps_on_grid(const std::vector<MpsGridCase>& grid,
                                 const MpsReferenceConfig& reference) {
  return compare_rates_on_grid<MpsGrid>(grid, reference);
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
