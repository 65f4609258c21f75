// The grid on which the fast MPS rate model is validated against the concurrent-kernel
// reference, shared by the test (tests/mps) and the report program (bench/validation/mps) so both
// measure the same thing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/validation/lib/grid_driver.h"
#include "bench/validation/mps/lib/mps_reference.h"
#include "models/mps/mps_params.h"

namespace gpumux {

struct MpsGridCase {
  std::vector<MpsJob> jobs;
  MpsParams params;
};

// `count` random cases, deterministic in `seed`: 1-8 jobs; sm_util uniform in [0.05, 1] with
// one job in five at exactly 1 (never idle); sm_share uniform in [0.05, 1]; active thread
// fraction 1 for half the jobs, else uniform in [0.25, 1]; mean kernel log-uniform in
// [10 us, 10 ms]; the given interference and burst shape for every case.
std::vector<MpsGridCase> make_mps_grid(int count, std::uint64_t seed, double interference,
                                       MpsBursts bursts = MpsBursts::kExponential);

struct MpsGridError : RateErrorSummary {
  double max_abs_busy_error = 0.0;
  double max_abs_sm_error = 0.0;
};

// Runs every case through both models (the reference with `reference` settings, its params
// replaced by the case's, seed + case index) and summarises the differences.
MpsGridError compare_mps_on_grid(const std::vector<MpsGridCase>& grid,
                                 const MpsReferenceConfig& reference);

// One line describing a case, for reports.
std::string describe(const MpsGridCase& c);

}  // namespace gpumux
