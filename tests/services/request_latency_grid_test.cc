// The service replica's request latency on a time-sliced GPU against the kernel-level
// reference driven by requests (models/timeslice/request_latency_grid.h), on every 12th case of
// the validation grid; the whole grid's figures are in bench/validation/timeslice/RESULTS.md
// section 5. The targets: relative p99 error at most 15% in the median case and 30% in
// the worst. Near saturation the reference's own p99 moves by more than that with the seed
// (long busy periods), so the worst-case bound applies to the cases the reference measures
// within 10% of itself (another seed); the median bound applies to every compared case.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/timeslice/request_latency_grid.h"

namespace gpumux {
namespace {

double relative(double value, double truth) { return std::abs(value - truth) / truth; }

TEST(RequestLatencyGrid, SliceScheduleMatchesTheKernelLevelReference) {
  const std::vector<RequestLatencyCase> grid = request_latency_grid(12);
  ASSERT_EQ(grid.size(), 24u);
  std::vector<double> p99_errors, p50_errors;
  int overloaded = 0, well_measured = 0;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const RequestLatencyCase& c = grid[i];
    const RequestLatencyComparison r = compare_request_latency(c, 3000, 100 * i, 2);
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
    const RequestLatencyComparison again = compare_request_latency(c, 3000, 100 * i + 50, 2);
    if (relative(again.reference.p99_us, r.reference.p99_us) > 0.10) continue;
    ++well_measured;
    EXPECT_LE(p99, 0.30) << describe(c) << ": p99 reference " << r.reference.p99_us
                         << " us, fast " << r.fast.p99_us << " us";
  }
  // The grid spans overloaded corners (load 0.9 beside a never-idle co-runner) but most cases
  // are compared, and most of those are well measured.
  RecordProperty("overloaded", overloaded);
  RecordProperty("compared", static_cast<int>(p99_errors.size()));
  RecordProperty("well_measured", well_measured);
  EXPECT_LE(overloaded, 12);
  ASSERT_GE(p99_errors.size(), 12u);
  EXPECT_GE(well_measured, static_cast<int>(p99_errors.size()) * 2 / 3);
  std::sort(p99_errors.begin(), p99_errors.end());
  std::sort(p50_errors.begin(), p50_errors.end());
  EXPECT_LE(p99_errors[p99_errors.size() / 2], 0.15);
  EXPECT_LE(p50_errors[p50_errors.size() / 2], 0.15);
}

}  // namespace
}  // namespace gpumux
