// Prints the fast time-slicing model's error against the kernel-level reference on the
// validation grid: timeslice_grid_report [cases] [seed]. Figures go to
// bench/validation/timeslice/RESULTS.md.
#include <cstdio>
#include <cstdlib>

#include "bench/validation/timeslice/lib/validation_grid.h"

int main(int argc, char** argv) {
  using namespace gpumux;
  const int cases = argc > 1 ? std::atoi(argv[1]) : 300;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2026;
  ReferenceConfig reference;
  reference.min_cycles = 20000.0;
  reference.max_events = 2e7;
  for (BurstDistribution d : {BurstDistribution::kExponential, BurstDistribution::kFixed}) {
    const auto grid = make_validation_grid(cases, seed, d);
    const GridError e = compare_on_grid(grid, reference);
    std::printf(
        "%s bursts, %d cases, %d rates: max |rate error| %.4f, mean %.4f, "
        "max |busy error| %.4f, max |switch error| %.4f\n",
        d == BurstDistribution::kFixed ? "fixed" : "exponential", cases, e.rates_compared,
        e.max_abs_rate_error, e.mean_abs_rate_error, e.max_abs_busy_error, e.max_abs_switch_error);
    if (e.worst_case >= 0) {
      std::printf("  worst: case %d job %d, reference %.4f vs fast %.4f; %s\n", e.worst_case,
                  e.worst_job, e.worst_reference, e.worst_fast,
                  describe(grid[e.worst_case]).c_str());
    }
    // Sampling noise of the reference itself: the same grid with another seed.
    ReferenceConfig other = reference;
    other.seed = reference.seed + 1000003;
    double noise = 0.0;
    for (std::size_t c = 0; c < grid.size() && c < 60; ++c) {
      ReferenceConfig a = reference, b = other;
      a.params = b.params = grid[c].params;
      a.seed += c;
      b.seed += c;
      const auto ra = simulate_reference(grid[c].jobs, a);
      const auto rb = simulate_reference(grid[c].jobs, b);
      for (std::size_t i = 0; i < ra.rates.size(); ++i) {
        noise = std::max(noise, std::abs(ra.rates[i] - rb.rates[i]));
      }
    }
    std::printf("  reference seed-to-seed max |rate difference| (first 60 cases): %.4f\n", noise);
  }
  return 0;
}
