// The grid on which the fast rate model is validated against the kernel-level reference, shared
// by the test (tests/timeslice) and the report program (bench/timeslice) so both measure the
// same thing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/validation/lib/grid_driver.h"
#include "bench/validation/timeslice/lib/kernel_reference.h"
#include "models/timeslice/timeslice_params.h"

namespace gpumux {

struct GridCase {
  std::vector<TimeSliceJob> jobs;
  TimeSliceParams params;
};

// `count` random cases, deterministic in `seed`: 1-8 jobs, sm_util uniform in [0.05, 1] with
// one job in five at exactly 1.0 (the never-idle limit), mean kernel log-uniform in
// [10 us, 10 ms], switch cost uniform in [0, 200] us, default slice, `distribution` bursts.
std::vector<GridCase> make_validation_grid(int count, std::uint64_t seed,
                                           BurstDistribution distribution);

struct GridError : RateErrorSummary {
  double max_abs_busy_error = 0.0;
  double max_abs_switch_error = 0.0;
};

// Runs every case through both models (reference with `reference` settings, its params
// replaced by the case's) and summarises the differences.
GridError compare_on_grid(const std::vector<GridCase>& grid, const ReferenceConfig& reference);

// One line describing a case, for reports.
std::string describe(const GridCase& c);

}  // namespace gpumux
