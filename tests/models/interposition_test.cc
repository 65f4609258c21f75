// The interposition form's expectation and fixed point (models/interposition.h): the pruned
// expectation against a plain enumeration of every on/off state, and the accelerated iteration
// against a plainly damped one run to a tighter tolerance.
#include "models/interposition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace gpumux {
namespace {

// E[max(0, X - gap)] by visiting all 2^count states, one product and one sum per blocker.
double enumerated_excess(const std::vector<double>& chance, const std::vector<double>& turn,
                         double switch_us, double gap_us) {
  const std::size_t count = chance.size();
  double lost = 0.0;
  for (std::size_t state = 0; state < (std::size_t{1} << count); ++state) {
    double p = 1.0, x = switch_us;
    for (std::size_t k = 0; k < count; ++k) {
      const bool on = (state >> k) & 1;
      p *= on ? chance[k] : 1.0 - chance[k];
      if (on) x += turn[k];
    }
    lost += p * std::max(0.0, x - gap_us);
  }
  return lost;
}

TEST(ExpectedExcess, EqualsEnumerationOverRandomBlockers) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int nonzero = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const std::size_t count = trial % (kInterpositionExactJobs + 1);
    std::vector<double> chance(count), turn(count);
    for (std::size_t k = 0; k < count; ++k) {
      // Certain and impossible blockers and equal turns happen in real GPUs; draw them too.
      const double u = unit(rng);
      chance[k] = u < 0.1 ? 0.0 : u < 0.2 ? 1.0 : unit(rng);
      turn[k] = unit(rng) < 0.2 ? 100.0 : 1000.0 * unit(rng);
    }
    const double switch_us = unit(rng) < 0.5 ? 0.0 : 50.0 * unit(rng);
    const double gap_us = 3000.0 * unit(rng) * unit(rng);
    const double expected = enumerated_excess(chance, turn, switch_us, gap_us);
    const double got = expected_excess(chance.data(), turn.data(), count, switch_us, gap_us);
    ASSERT_NEAR(got, expected, 1e-12 * (1.0 + expected))
        << "trial " << trial << ", " << count << " blockers, gap " << gap_us;
    if (expected > 0.0) ++nonzero;
  }
  EXPECT_GT(nonzero, 10000);  // the comparison covered straddling cases, not only zeros
}

TEST(ExpectedExcess, EdgeCases) {
  const double chance[] = {0.5, 0.25};
  const double turn[] = {10.0, 20.0};
  // Nothing to block: only the switch can exceed the gap.
  EXPECT_DOUBLE_EQ(expected_excess(chance, turn, 0, 5.0, 2.0), 3.0);
  EXPECT_DOUBLE_EQ(expected_excess(chance, turn, 0, 1.0, 2.0), 0.0);
  // Everything fits in the gap.
  EXPECT_DOUBLE_EQ(expected_excess(chance, turn, 2, 0.0, 30.0), 0.0);
  // No gap: the mean of X.
  EXPECT_DOUBLE_EQ(expected_excess(chance, turn, 2, 1.0, 0.0), 1.0 + 5.0 + 5.0);
  // Gap 15: states {20} (p 0.5 * 0.25) exceed by 5, {10, 20} (0.5 * 0.25) by 15.
  EXPECT_DOUBLE_EQ(expected_excess(chance, turn, 2, 0.0, 15.0), 0.125 * 5.0 + 0.125 * 15.0);
}

// The same fixed point by half steps only, to a tolerance 100 times tighter.
std::vector<double> damped_cycles(const std::vector<InterpositionJob>& jobs, double switch_us) {
  const std::size_t n = jobs.size();
  std::vector<double> c(n), next(n);
  for (std::size_t j = 0; j < n; ++j) c[j] = jobs[j].alone_cycle_us;
  for (int it = 0; it < 100000; ++it) {
    double change = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      std::vector<double> chance, turn;
      double between = 0.0, any = 1.0;
      for (std::size_t m = 0; m < n; ++m) {
        if (m == j) continue;
        const double waits = std::max(0.0, c[m] - jobs[m].alone_cycle_us);
        chance.push_back(std::min(1.0, (waits + c[j]) / c[m]));
        turn.push_back(jobs[m].turn_us);
        const double ready = std::min(1.0, (waits + jobs[j].turn_us) / c[m]);
        between += ready * jobs[m].turn_us;
        any *= 1.0 - ready;
      }
      between += switch_us * (1.0 - any);
      const double cycle = jobs[j].alone_cycle_us + (jobs[j].turns - 1.0) * between +
                           enumerated_excess(chance, turn, switch_us, jobs[j].gap_us);
      next[j] = 0.5 * (c[j] + cycle);
      change = std::max(change, std::abs(next[j] - c[j]) / c[j]);
    }
    c = next;
    if (change < 1e-12) break;
  }
  return c;
}

TEST(InterpositionCycles, ReachesTheDampedFixedPoint) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 2 + trial % 8;
    std::vector<InterpositionJob> jobs(n);
    for (auto& job : jobs) {
      const double kernel = 50.0 + 4000.0 * unit(rng);
      const double gap = unit(rng) < 0.2 ? 0.0 : kernel * 3.0 * unit(rng);
      const double turns = unit(rng) < 0.3 ? std::ceil(4.0 * unit(rng)) : 1.0;
      job = InterpositionJob{kernel + gap, gap, kernel / turns, turns};
    }
    const double switch_us = trial % 2 == 0 ? 0.0 : 30.0;
    std::vector<double> cycles(n);
    InterpositionWorkspace ws;
    const int iterations = interposition_cycles(
        std::span<const InterpositionJob>(jobs), [](std::size_t, std::size_t) { return 1.0; },
        switch_us, std::span<double>(cycles), ws);
    ASSERT_LT(iterations, 500) << "trial " << trial;
    const std::vector<double> reference = damped_cycles(jobs, switch_us);
    for (std::size_t j = 0; j < n; ++j) {
      ASSERT_NEAR(cycles[j], reference[j], 1e-8 * reference[j]) << "trial " << trial << " job " << j;
      ASSERT_GE(cycles[j], jobs[j].alone_cycle_us * (1.0 - 1e-12));
    }
  }
}

TEST(InterpositionCycles, IdenticalJobsStayIdentical) {
  // n identical busy jobs with kernels within one turn: c = n (k + s) (an exact case).
  for (std::size_t n = 2; n <= 9; ++n) {
    std::vector<InterpositionJob> jobs(n, InterpositionJob{100.0, 0.0, 100.0 + 20.0, 1.0});
    std::vector<double> cycles(n);
    InterpositionWorkspace ws;
    interposition_cycles(std::span<const InterpositionJob>(jobs),
                         [](std::size_t, std::size_t) { return 1.0; }, 20.0,
                         std::span<double>(cycles), ws);
    for (std::size_t j = 0; j < n; ++j) {
      EXPECT_EQ(cycles[j], cycles[0]);
      EXPECT_NEAR(cycles[j], static_cast<double>(n) * 120.0, 1e-6 * cycles[j])
          << n << " jobs";
    }
  }
}

}  // namespace
}  // namespace gpumux
