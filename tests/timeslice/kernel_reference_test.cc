#include "bench/validation/timeslice/lib/kernel_reference.h"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

#include "bench/validation/timeslice/lib/validation_grid.h"

namespace gpumux {
namespace {

ReferenceConfig config(double switch_us, BurstDistribution d = BurstDistribution::kExponential) {
  ReferenceConfig c;
  c.params.switch_cost_us = switch_us;
  c.params.distribution = d;
  c.min_cycles = 20000;
  c.max_events = 2e6;
  return c;
}

TEST(KernelReference, SingleJobRunsAtItsSoloSpeed) {
  for (BurstDistribution d : {BurstDistribution::kFixed, BurstDistribution::kExponential}) {
    for (double util : {0.1, 0.5, 1.0}) {
      const ReferenceResult r = simulate_reference({{util, 200.0}}, config(100.0, d));
      EXPECT_NEAR(r.rates[0], 1.0, 0.02) << util;
      EXPECT_NEAR(r.busy_fraction, util, 0.02 * util) << util;
      EXPECT_EQ(r.switch_fraction, 0.0);  // alone, the context stays resident
    }
  }
}

TEST(KernelReference, NeverIdleJobsAlternateAtKernelEnds) {
  // Strict alternation (measured on an H200): each kernel end hands the GPU to the waiting
  // context, so a round is one kernel of each plus two switches, not two whole slices.
  const double s = 50.0;
  const ReferenceResult r =
      simulate_reference({{1.0, 100.0}, {1.0, 300.0}}, config(s, BurstDistribution::kFixed));
  const double round = 100.0 + 300.0 + 2.0 * s;
  EXPECT_NEAR(r.rates[0], 100.0 / round, 0.002);
  EXPECT_NEAR(r.rates[1], 300.0 / round, 0.002);
  EXPECT_NEAR(r.switch_fraction, 2.0 * s / round, 0.002);
  EXPECT_NEAR(r.busy_fraction, 400.0 / round, 0.002);
}

TEST(KernelReference, LongKernelsArePreemptedAtSliceEnds) {
  // Kernels of three slices run as three turns, each after a switch.
  ReferenceConfig c = config(50.0, BurstDistribution::kFixed);
  const double slice = c.params.time_slice_us;
  const ReferenceResult r = simulate_reference({{1.0, 3 * slice}, {1.0, 3 * slice}}, c);
  EXPECT_NEAR(r.switch_fraction, 50.0 / (slice + 50.0), 0.002);
  EXPECT_NEAR(r.rates[0], slice / (2.0 * (slice + 50.0)), 0.003);
}

TEST(KernelReference, LaunchGapIsTheShortestGap) {
  // Never-idle 20 us kernels with a 9 us launch gap alone keep the GPU busy 20 / 29 of the
  // time; together each kernel costs a switch (the H200 pairs: 0.093 measured).
  ReferenceConfig c = config(137.0, BurstDistribution::kFixed);
  c.params.launch_gap_us = 9.0;
  const ReferenceResult alone = simulate_reference({{1.0, 20.0}}, c);
  EXPECT_NEAR(alone.busy_fraction, 20.0 / 29.0, 0.002);
  EXPECT_NEAR(alone.rates[0], 1.0, 0.002);
  const ReferenceResult pair = simulate_reference({{1.0, 20.0}, {1.0, 20.0}}, c);
  EXPECT_NEAR(pair.rates[0], 29.0 / (2.0 * (20.0 + 137.0)), 0.003);
  c.params.launch_gap_us = 0.0;
  EXPECT_NEAR(simulate_reference({{1.0, 20.0}, {1.0, 20.0}}, c).rates[0],
              20.0 / (2.0 * (20.0 + 137.0)), 0.003);
}

TEST(KernelReference, FixedLengthsLockIntoAlternation) {
  // Two duty-0.5 processes with 2 ms kernels (the H200 measured 0.94 each): fixed lengths
  // interleave, each gap covering the other's kernel and switch; exponential ones collide.
  const std::vector<TimeSliceJob> jobs{{0.5, 2000.0}, {0.5, 2000.0}};
  ReferenceConfig fixed = config(137.0, BurstDistribution::kFixed);
  fixed.params.time_slice_us = 2000.0;
  const double locked = 4000.0 / (2.0 * 2137.0);
  EXPECT_NEAR(simulate_reference(jobs, fixed).rates[0], locked, 0.01);
  ReferenceConfig random = fixed;
  random.params.distribution = BurstDistribution::kExponential;
  EXPECT_LT(simulate_reference(jobs, random).rates[0], locked - 0.1);
}

TEST(KernelReference, ShorterKernelsAtTheSameDutyCycleLoseMoreToSwitches) {
  double last_lost = -1.0, last_rate = 2.0;
  for (double kernel : {5000.0, 500.0, 50.0, 10.0}) {
    const ReferenceResult r = simulate_reference({{0.5, kernel}, {0.5, kernel}}, config(50.0));
    EXPECT_GT(r.switch_fraction, last_lost) << kernel;
    EXPECT_LT(r.rates[0], last_rate) << kernel;
    last_lost = r.switch_fraction;
    last_rate = r.rates[0];
  }
  EXPECT_GT(last_lost, 0.5);  // 10 us kernels against 50 us switches: mostly ping-pong
}

TEST(KernelReference, PropertiesHoldOnTheGrid) {
  ReferenceConfig c;
  c.max_events = 2e5;
  for (BurstDistribution d : {BurstDistribution::kFixed, BurstDistribution::kExponential}) {
    const auto grid = make_validation_grid(40, 11, d);
    for (std::size_t k = 0; k < grid.size(); ++k) {
      c.params = grid[k].params;
      const ReferenceResult r = simulate_reference(grid[k].jobs, c);
      SCOPED_TRACE(describe(grid[k]));
      for (double rate : r.rates) {
        EXPECT_GT(rate, 0.0);
        EXPECT_LE(rate, 1.1);  // sampling noise only: a job cannot beat running alone for long
      }
      EXPECT_LE(r.busy_fraction + r.switch_fraction, 1.0 + 1e-9);
      // Work is conserved: every microsecond is busy, switching or idle, and busy time is the
      // sum of the jobs' executed kernel time.
      EXPECT_NEAR(r.busy_fraction + r.switch_fraction + r.idle_fraction, 1.0, 1e-9);
      const double work = std::accumulate(r.work_us.begin(), r.work_us.end(), 0.0);
      EXPECT_NEAR(work, r.busy_fraction * r.window_us, 1e-6 * r.window_us);
    }
  }
}

TEST(KernelReference, IsDeterministicForASeed) {
  const std::vector<TimeSliceJob> jobs{{0.3, 40.0}, {0.7, 900.0}, {1.0, 20.0}};
  ReferenceConfig c = config(30.0);
  c.max_events = 1e5;
  const ReferenceResult a = simulate_reference(jobs, c);
  const ReferenceResult b = simulate_reference(jobs, c);
  EXPECT_EQ(a.rates, b.rates);
  EXPECT_EQ(a.events, b.events);
  c.seed = 99;
  EXPECT_NE(simulate_reference(jobs, c).rates, a.rates);
}

TEST(KernelReference, SlicePresets) {
  EXPECT_EQ(time_slice_us(TimeSlicePreset::kDefault), 1024.0);
  EXPECT_EQ(time_slice_us(TimeSlicePreset::kShort), 2000.0);
  EXPECT_EQ(time_slice_us(TimeSlicePreset::kMedium), 10000.0);
  EXPECT_EQ(time_slice_us(TimeSlicePreset::kLong), 30000.0);
  // A longer slice lets jobs with long kernels lose less to switches.
  ReferenceConfig c = config(100.0, BurstDistribution::kFixed);
  c.params.time_slice_us = time_slice_us(TimeSlicePreset::kLong);
  const ReferenceResult r = simulate_reference({{1.0, 90000.0}, {1.0, 90000.0}}, c);
  EXPECT_NEAR(r.switch_fraction, 100.0 / 30100.0, 0.001);
}

TEST(KernelReference, RejectsBadParameters) {
  ReferenceConfig c;
  EXPECT_THROW(simulate_reference({}, c), std::invalid_argument);
  EXPECT_THROW(simulate_reference({{0.0, 10.0}}, c), std::invalid_argument);
  EXPECT_THROW(simulate_reference({{1.5, 10.0}}, c), std::invalid_argument);
  EXPECT_THROW(simulate_reference({{0.5, 0.0}}, c), std::invalid_argument);
  c.params.switch_cost_us = -1.0;
  EXPECT_THROW(simulate_reference({{0.5, 10.0}}, c), std::invalid_argument);
}

}  // namespace
}  // namespace gpumux
