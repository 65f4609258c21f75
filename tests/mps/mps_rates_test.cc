#include "models/mps/mps_rates.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "bench/validation/mps/lib/mps_validation.h"

namespace gpumux {
namespace {

TEST(MpsRates, SingleJobIsUnaffected) {
  for (double util : {0.05, 0.5, 1.0}) {
    const std::vector<MpsJob> jobs{{util, 0.7, 1.0, 30.0}};
    const MpsRates r = mps_rates(jobs, MpsParams{0.5});
    EXPECT_DOUBLE_EQ(r.rates[0], 1.0);
    EXPECT_NEAR(r.busy_fraction, util, 1e-12);
    EXPECT_NEAR(r.sm_fraction, 0.7 * util, 1e-12);
  }
  // Capped at half of what it wants, a job with duty cycle 0.5 takes 2 + 1 units per cycle
  // instead of 1 + 1.
  const std::vector<MpsJob> capped{{0.5, 1.0, 0.5, 30.0}};
  EXPECT_NEAR(mps_rates(capped, MpsParams{}).rates[0], 2.0 / 3.0, 1e-12);
}

TEST(MpsRates, ExactSaturatedCases) {
  for (double alpha : {0.0, 0.4}) {
    for (std::size_t n = 2; n <= 12; ++n) {  // beyond kMpsMaxExactJobs too: no variance
      const std::vector<MpsJob> jobs(n, MpsJob{1.0, 1.0, 1.0, 100.0});
      const MpsRates r = mps_rates(jobs, MpsParams{alpha});
      const double share = 1.0 / static_cast<double>(n);
      for (double rate : r.rates) {
        EXPECT_NEAR(rate, share / (1.0 + alpha * (1.0 - share)), 1e-9) << n;
      }
      EXPECT_NEAR(r.busy_fraction, 1.0, 1e-12);
      EXPECT_NEAR(r.sm_fraction, 1.0, 1e-9);
    }
  }
}

TEST(MpsRates, DemandsThatFitRunAtFullSpeedWithoutContention) {
  const std::vector<MpsJob> jobs{{0.7, 0.3, 1.0, 100.0}, {1.0, 0.5, 1.0, 10.0}};
  const MpsRates r = mps_rates(jobs, MpsParams{});
  EXPECT_NEAR(r.rates[0], 1.0, 1e-12);
  EXPECT_NEAR(r.rates[1], 1.0, 1e-12);
  // The thread cap makes more pairs fit: two full-GPU jobs capped at 50% never collide (but
  // each runs at half speed even alone).
  const std::vector<MpsJob> capped(2, MpsJob{1.0, 1.0, 0.5, 100.0});
  EXPECT_NEAR(mps_rates(capped, MpsParams{}).rates[0], 0.5, 1e-12);
}

TEST(MpsRates, KernelLengthDoesNotMatter) {
  std::vector<MpsJob> jobs{{0.4, 0.8, 1.0, 10.0}, {0.6, 0.6, 0.9, 10.0}, {0.3, 0.5, 1.0, 10.0}};
  const MpsRates a = mps_rates(jobs, MpsParams{0.2});
  jobs[0].mean_kernel_us = 5000.0;
  jobs[2].mean_kernel_us = 77.0;
  const MpsRates b = mps_rates(jobs, MpsParams{0.2});
  for (std::size_t i = 0; i < jobs.size(); ++i) EXPECT_NEAR(a.rates[i], b.rates[i], 1e-9);
}

TEST(MpsRates, InterferenceOnlySlowsDown) {
  for (const MpsGridCase& c : make_mps_grid(100, 3, 0.0)) {
    const MpsRates pure = mps_rates(c.jobs, MpsParams{0.0});
    const MpsRates slow = mps_rates(c.jobs, MpsParams{0.8});
    for (std::size_t i = 0; i < c.jobs.size(); ++i) {
      EXPECT_LE(slow.rates[i], pure.rates[i] + 1e-12) << describe(c);
    }
  }
}

TEST(MpsRates, PropertiesHoldOnTheGrid) {
  for (double alpha : {0.0, 0.5, 3.0}) {
    for (const MpsGridCase& c : make_mps_grid(300, 5, alpha)) {
      const MpsRates r = mps_rates(c.jobs, c.params);
      SCOPED_TRACE(describe(c));
      ASSERT_EQ(r.rates.size(), c.jobs.size());
      for (double rate : r.rates) {
        EXPECT_GT(rate, 0.0);
        EXPECT_LE(rate, 1.0);
      }
      EXPECT_LE(r.busy_fraction, 1.0 + 1e-12);
      EXPECT_LE(r.sm_fraction, r.busy_fraction + 1e-9);
    }
  }
}

TEST(MpsRates, AllocationFreeFormMatchesAndReusesItsWorkspace) {
  MpsWorkspace ws;
  ws.resize(48);
  const double* before = ws.speed.data();
  for (const MpsGridCase& c : make_mps_grid(50, 9, 0.3)) {
    std::vector<double> rates(c.jobs.size());
    const MpsLoad load = mps_rates(c.jobs, c.params, rates, ws);
    const MpsRates ref = mps_rates(c.jobs, c.params);
    EXPECT_EQ(rates, ref.rates);
    EXPECT_EQ(load.busy_fraction, ref.busy_fraction);
  }
  EXPECT_EQ(ws.speed.data(), before);
  std::vector<double> wrong(1);
  const std::vector<MpsJob> two(2);
  EXPECT_THROW(mps_rates(two, MpsParams{}, wrong, ws), std::invalid_argument);
}

TEST(MpsRates, NormalApproximationIsCloseToExactForManyClients) {
  // Beyond kMpsMaxExactJobs the others' demand is taken as normal; compare with the exact
  // enumeration on 7-14 clients.
  double worst = 0.0;
  for (const MpsGridCase& c : make_mps_grid(40, 21, 0.3)) {
    std::vector<MpsJob> jobs = c.jobs;
    for (const MpsJob& j : c.jobs) jobs.push_back(j);  // 2-16 clients
    if (jobs.size() <= kMpsMaxExactJobs || jobs.size() > 14) continue;
    std::vector<double> approx(jobs.size()), exact(jobs.size());
    MpsWorkspace ws;
    mps_rates(jobs, c.params, approx, ws);
    mps_rates(jobs, c.params, exact, ws, 64);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      worst = std::max(worst, std::abs(approx[i] - exact[i]));
    }
  }
  RecordProperty("max_abs_difference", std::to_string(worst));
  EXPECT_LT(worst, 0.01);  // measured 0.006
}

TEST(MpsRates, RejectsBadInput) {
  const std::vector<MpsJob> bad_util{{0.0, 1.0, 1.0, 10.0}};
  EXPECT_THROW(mps_rates(bad_util, MpsParams{}), std::invalid_argument);
  const std::vector<MpsJob> bad_share{{0.5, 0.0, 1.0, 10.0}};
  EXPECT_THROW(mps_rates(bad_share, MpsParams{}), std::invalid_argument);
  const std::vector<MpsJob> bad_cap{{0.5, 1.0, 1.5, 10.0}};
  EXPECT_THROW(mps_rates(bad_cap, MpsParams{}), std::invalid_argument);
  const std::vector<MpsJob> ok{{0.5, 1.0, 1.0, 10.0}};
  EXPECT_THROW(mps_rates(ok, MpsParams{-0.1}), std::invalid_argument);
  EXPECT_TRUE(mps_rates(std::vector<MpsJob>{}, MpsParams{}).rates.empty());
}

// The validation the fast model is built for: against the concurrent-kernel reference on a
// held-out grid (seed 2026; the model's form was chosen on seed 77). Figures: bench/validation/mps/RESULTS.md.
TEST(MpsRates, MatchesTheReferenceOnTheValidationGrid) {
  MpsReferenceConfig reference;
  reference.min_cycles = 5000.0;
  reference.max_events = 4e6;
  for (double alpha : {0.0, 0.5}) {
    const MpsGridError e = compare_mps_on_grid(make_mps_grid(60, 2026, alpha), reference);
    SCOPED_TRACE(alpha);
    RecordProperty(alpha == 0.0 ? "max_error_alpha0" : "max_error_alpha05",
                   std::to_string(e.max_abs_rate_error));
    // Measured (bench/validation/mps/RESULTS.md): max 0.0386 / 0.0370, mean 0.0045 / 0.0045, busy 0.019 / 0.030.
    EXPECT_LE(e.max_abs_rate_error, 0.04);
    EXPECT_LE(e.mean_abs_rate_error, 0.005);
    EXPECT_LE(e.max_abs_busy_error, 0.032);
    std::printf("alpha %.1f: max %.4f mean %.4f busy %.4f sm %.4f (%d rates)\n", alpha,
                e.max_abs_rate_error, e.mean_abs_rate_error, e.max_abs_busy_error,
                e.max_abs_sm_error, e.rates_compared);
  }
}

}  // namespace
}  // namespace gpumux
