// The service replica's request latency on a shared GPU against the references driven by
// requests, on a subset of each validation grid: time-slicing (every 12th case of
// bench/validation/timeslice/lib/request_latency_grid.h, against the kernel-level reference) and MPS (every
// 18th of bench/validation/mps/lib/mps_request_latency_grid.h, against the block-level reference). The whole
// grids' figures are in bench/validation/timeslice/RESULTS.md section 5 and
// bench/validation/mps/RESULTS.md. The targets: relative p99 error at most 15% in the
// median case and 30% in the worst. Near saturation the reference's own p99 moves by more than that
// with the seed (long busy periods), so the worst-case bound applies to the cases the reference
// measures within 10% of itself (another seed); the median bound applies to every compared case.
#include "bench/validation/timeslice/lib/request_latency_grid.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "bench/validation/mps/lib/mps_request_latency_grid.h"

namespace gpumux {
namespace {

double relative(double value, double truth) { return std::abs(value - truth) / truth; }

// Runs `compare(case, requests, seed, replications)` on every case of `grid` and checks the
// bounds above; records how many cases were overloaded, compared and well measured.
template <class Case, class Compare>
void check_grid(const std::vector<Case>& grid, Compare compare) {
  std::vector<double> p99_errors, p50_errors;
  int overloaded = 0, well_measured = 0;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const Case& c = grid[i];
    const RequestLatencyComparison r = compare(c, 3000, 100 * i, 2);
    // Both sides agree on whether the service keeps up beside the co-runner.
    ASSERT_EQ(r.reference.overloaded(), r.fast.overloaded()) << describe(c);
    if (r.reference.overloaded()) {
      ++overloaded;
      continue;
    }
    ASSERT_GT(r.reference.served, 5000) << describe(c);
    const double p99 = relative(r.fast.p99_us, r.reference.p99_us);
    p99_errors.push_back(p99);
    p50_errors.push_back(relative(r.fast.p50_us, r.reference.p50_us));
    const RequestLatencyComparison again = compare(c, 3000, 100 * i + 50, 2);
    if (relative(again.reference.p99_us, r.reference.p99_us) > 0.10) continue;
    ++well_measured;
    EXPECT_LE(p99, 0.30) << describe(c) << ": p99 reference " << r.reference.p99_us << " us, fast "
                         << r.fast.p99_us << " us";
  }
  ::testing::Test::RecordProperty("overloaded", overloaded);
  ::testing::Test::RecordProperty("compared", static_cast<int>(p99_errors.size()));
  ::testing::Test::RecordProperty("well_measured", well_measured);
  // The grids span overloaded corners (load 0.9 beside a never-idle co-runner) but most cases
  // are compared, and most of those are well measured.
  EXPECT_LE(overloaded, static_cast<int>(grid.size()) / 2);
  ASSERT_GE(p99_errors.size(), grid.size() / 2);
  EXPECT_GE(well_measured, static_cast<int>(p99_errors.size()) * 2 / 3);
  std::sort(p99_errors.begin(), p99_errors.end());
  std::sort(p50_errors.begin(), p50_errors.end());
  EXPECT_LE(p99_errors[p99_errors.size() / 2], 0.15);
  EXPECT_LE(p50_errors[p50_errors.size() / 2], 0.15);
}

TEST(RequestLatencyGrid, SliceScheduleMatchesTheKernelLevelReference) {
  const std::vector<RequestLatencyCase> grid = request_latency_grid(12);
  ASSERT_EQ(grid.size(), 24u);
  check_grid(grid, [](const RequestLatencyCase& c, double n, std::uint64_t s, int r) {
    return compare_request_latency(c, n, s, r);
  });
}

TEST(RequestLatencyGrid, BlockScheduleMatchesTheBlockLevelReference) {
  const std::vector<MpsRequestLatencyCase> grid = mps_request_latency_grid(18);
  ASSERT_EQ(grid.size(), 24u);
  check_grid(grid, [](const MpsRequestLatencyCase& c, double n, std::uint64_t s, int r) {
    return compare_mps_request_latency(c, n, s, r);
  });
}

}  // namespace
}  // namespace gpumux
