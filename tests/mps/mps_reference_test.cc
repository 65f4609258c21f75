#include "bench/validation/mps/lib/mps_reference.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "bench/validation/mps/lib/mps_validation.h"

namespace gpumux {
namespace {

MpsReferenceConfig quick(double interference = 0.0) {
  MpsReferenceConfig c;
  c.params.interference = interference;
  c.min_cycles = 5000.0;
  c.max_events = 1e6;
  return c;
}

TEST(MpsReference, SingleJobRunsAsAlone) {
  for (double util : {0.1, 0.5, 1.0}) {
    const MpsReferenceResult r = simulate_mps_reference({{util, 0.6, 1.0, 200.0}}, quick());
    EXPECT_NEAR(r.rates[0], 1.0, 0.02) << util;
    EXPECT_NEAR(r.busy_fraction, util, 0.02) << util;
    EXPECT_NEAR(r.sm_fraction, 0.6 * util, 0.02) << util;
    EXPECT_NEAR(r.busy_fraction + r.idle_fraction, 1.0, 1e-9);
  }
}

TEST(MpsReference, ThreadCapSlowsEvenAlone) {
  // A never-idle job that wants the whole GPU, capped at half the SMs, runs at half speed.
  const MpsReferenceResult r = simulate_mps_reference({{1.0, 1.0, 0.5, 100.0}}, quick());
  EXPECT_NEAR(r.rates[0], 0.5, 1e-6);
  EXPECT_NEAR(r.sm_fraction, 0.5, 0.01);
}

TEST(MpsReference, SaturatingJobsSplitTheSms) {
  const std::vector<MpsJob> two(2, MpsJob{1.0, 1.0, 1.0, 100.0});
  MpsReferenceResult r = simulate_mps_reference(two, quick());
  EXPECT_NEAR(r.rates[0], 0.5, 0.01);
  EXPECT_NEAR(r.rates[1], 0.5, 0.01);
  // Contention: each also loses 1 + 0.5 * (the other's half of the SMs).
  r = simulate_mps_reference(two, quick(0.5));
  EXPECT_NEAR(r.rates[0], 0.5 / 1.25, 0.01);
  // Demands of 0.3 and 0.6 fit side by side: nobody slows down without contention.
  const std::vector<MpsJob> fit{{1.0, 0.3, 1.0, 100.0}, {1.0, 0.6, 1.0, 100.0}};
  r = simulate_mps_reference(fit, quick());
  EXPECT_NEAR(r.rates[0], 1.0, 1e-6);
  EXPECT_NEAR(r.rates[1], 1.0, 1e-6);
  EXPECT_NEAR(r.sm_fraction, 0.9, 0.01);
}

TEST(MpsReference, PropertiesHoldOnAGrid) {
  for (MpsBursts b : {MpsBursts::kExponential, MpsBursts::kFixed}) {
    for (const MpsGridCase& c : make_mps_grid(30, 11, 0.3, b)) {
      MpsReferenceConfig cfg = quick(0.3);
      cfg.params.bursts = b;
      cfg.max_events = 2e5;
      const MpsReferenceResult r = simulate_mps_reference(c.jobs, cfg);
      SCOPED_TRACE(describe(c));
      for (double rate : r.rates) {
        EXPECT_GT(rate, 0.0);
        EXPECT_LE(rate, 1.1);  // sampling noise above 1
      }
      EXPECT_LE(r.sm_fraction, r.busy_fraction + 1e-9);
      EXPECT_NEAR(r.busy_fraction + r.idle_fraction, 1.0, 1e-9);
      for (std::size_t i = 0; i < c.jobs.size(); ++i) {
        EXPECT_LE(r.running_fraction[i], r.busy_fraction + 1e-9);
      }
    }
  }
}

TEST(MpsReference, DeterministicPerSeed) {
  const std::vector<MpsJob> jobs{{0.4, 0.7, 1.0, 50.0}, {0.6, 0.5, 0.8, 300.0}};
  MpsReferenceConfig cfg = quick();
  cfg.max_events = 1e5;
  const MpsReferenceResult a = simulate_mps_reference(jobs, cfg);
  const MpsReferenceResult b = simulate_mps_reference(jobs, cfg);
  EXPECT_EQ(a.rates, b.rates);
  EXPECT_EQ(a.events, b.events);
  cfg.seed = 2;
  EXPECT_NE(simulate_mps_reference(jobs, cfg).rates, a.rates);
}

TEST(MpsReference, RejectsBadInput) {
  EXPECT_THROW(simulate_mps_reference({}, quick()), std::invalid_argument);
  EXPECT_THROW(simulate_mps_reference({{0.0, 1.0, 1.0, 10.0}}, quick()), std::invalid_argument);
  EXPECT_THROW(simulate_mps_reference({{0.5, 1.5, 1.0, 10.0}}, quick()), std::invalid_argument);
  EXPECT_THROW(simulate_mps_reference({{0.5, 1.0, 0.0, 10.0}}, quick()), std::invalid_argument);
  EXPECT_THROW(simulate_mps_reference({{0.5, 1.0, 1.0, 0.0}}, quick()), std::invalid_argument);
  EXPECT_THROW(simulate_mps_reference({{0.5, 1.0, 1.0, 10.0}}, quick(-1.0)), std::invalid_argument);
}

}  // namespace
}  // namespace gpumux
