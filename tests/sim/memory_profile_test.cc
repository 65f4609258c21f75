#include "sim/core/memory_profile.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpumux {
namespace {

constexpr double kS = 1e6;  // microseconds per second

// Ramp 0-10 s at 0.5, steady 0.6 from 10 s, spike to 1.0 at 25-30 s, repeating every 20 s
// from 10 s: 0.6 on [10, 25), 1.0 on [25, 30), 0.6 on [30, 45), 1.0 on [45, 50), ...
MemoryProfile spiky() {
  return MemoryProfile("spiky", {{0, 0.5}, {10 * kS, 0.6}, {25 * kS, 1.0}}, 10 * kS, 20 * kS);
}

TEST(MemoryProfile, FractionFollowsStepsAndRepeats) {
  const MemoryProfile p = spiky();
  EXPECT_DOUBLE_EQ(p.fraction_at(0), 0.5);
  EXPECT_DOUBLE_EQ(p.fraction_at(9.9 * kS), 0.5);
  EXPECT_DOUBLE_EQ(p.fraction_at(10 * kS), 0.6);
  EXPECT_DOUBLE_EQ(p.fraction_at(26 * kS), 1.0);
  EXPECT_DOUBLE_EQ(p.fraction_at(30 * kS), 0.6);
  EXPECT_DOUBLE_EQ(p.fraction_at(46 * kS), 1.0);
  EXPECT_DOUBLE_EQ(p.fraction_at(1015 * kS), 0.6);  // 1015 = 10 + 50 * 20 + 5: steady
  EXPECT_DOUBLE_EQ(p.fraction_at(1027 * kS), 1.0);  // 1027 = 10 + 50 * 20 + 17: spike
}

TEST(MemoryProfile, NextChangeWalksIntoLaterPeriods) {
  const MemoryProfile p = spiky();
  EXPECT_DOUBLE_EQ(p.next_change_after(0), 10 * kS);
  EXPECT_DOUBLE_EQ(p.next_change_after(10 * kS), 25 * kS);
  EXPECT_DOUBLE_EQ(p.next_change_after(25 * kS), 30 * kS);
  EXPECT_DOUBLE_EQ(p.next_change_after(31 * kS), 45 * kS);
  EXPECT_DOUBLE_EQ(p.next_change_after(45 * kS), 50 * kS);
  EXPECT_DOUBLE_EQ(p.max_fraction(), 1.0);
  EXPECT_DOUBLE_EQ(p.mean_fraction(), (0.6 * 15 + 1.0 * 5) / 20);
}

TEST(MemoryProfile, WithoutPeriodTheLastStepHolds) {
  const MemoryProfile p("ramp", {{0, 0.2}, {5 * kS, 1.0}});
  EXPECT_DOUBLE_EQ(p.fraction_at(1e12), 1.0);
  EXPECT_EQ(p.next_change_after(5 * kS), MemoryProfile::kNever);
  EXPECT_DOUBLE_EQ(p.mean_fraction(), 1.0);
}

TEST(MemoryProfile, BadShapesAreRejected) {
  EXPECT_THROW(MemoryProfile("x", {}), std::invalid_argument);
  EXPECT_THROW(MemoryProfile("x", {{1, 0.5}}), std::invalid_argument);
  EXPECT_THROW(MemoryProfile("x", {{0, 0.5}, {0, 0.6}}), std::invalid_argument);
  EXPECT_THROW(MemoryProfile("x", {{0, 1.5}}), std::invalid_argument);
  EXPECT_THROW(MemoryProfile("x", {{0, 0.5}, {10, 0.6}}, 5, 20), std::invalid_argument);
  EXPECT_THROW(MemoryProfile("x", {{0, 0.5}, {10, 0.6}}, 0, 5), std::invalid_argument);
}

}  // namespace
}  // namespace gpumux
