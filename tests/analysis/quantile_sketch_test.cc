// Job percentiles in bounded memory: exact up to the limit (byte for byte what summarize()
// gives), within the stated relative error past it, with count, mean and max exact.
#include "analysis/stats/quantile_sketch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

namespace gpumux {
namespace {

std::vector<double> lognormal_sample(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(5.0, 2.0);
  std::vector<double> out(n);
  for (double& v : out) v = d(rng);
  return out;
}

TEST(QuantileSketch, ExactUpToTheLimit) {
  auto values = lognormal_sample(1000, 1);
  QuantileSketch sketch(1000);
  for (double v : values) sketch.add(v);
  EXPECT_FALSE(sketch.approximate());
  const DistributionSummary exact = summarize(values);
  const DistributionSummary s = sketch.summary();
  EXPECT_EQ(s.count, exact.count);
  EXPECT_EQ(s.mean, exact.mean);
  EXPECT_EQ(s.p50, exact.p50);
  EXPECT_EQ(s.p99, exact.p99);
  EXPECT_EQ(s.max, exact.max);
  EXPECT_FALSE(sketch.to_json().contains("relative_error"));
}

TEST(QuantileSketch, WithinTheStatedErrorPastTheLimit) {
  auto values = lognormal_sample(200'000, 2);
  QuantileSketch sketch(1000);
  for (double v : values) sketch.add(v);
  ASSERT_TRUE(sketch.approximate());
  const DistributionSummary exact = summarize(values);
  const DistributionSummary s = sketch.summary();
  EXPECT_EQ(s.count, exact.count);
  EXPECT_NEAR(s.mean, exact.mean, 1e-9 * exact.mean);
  EXPECT_EQ(s.max, exact.max);
  for (auto [got, want] : {std::pair{s.p50, exact.p50}, std::pair{s.p90, exact.p90},
                           std::pair{s.p95, exact.p95}, std::pair{s.p99, exact.p99}}) {
    EXPECT_LE(std::abs(got / want - 1.0), QuantileSketch::kRelativeError) << got << " vs " << want;
  }
  const nlohmann::json j = sketch.to_json();
  EXPECT_EQ(j.at("relative_error").get<double>(), QuantileSketch::kRelativeError);
  EXPECT_EQ(j.at("count").get<std::size_t>(), 200'000u);
}

TEST(QuantileSketch, ZerosAndExtremesStayExact) {
  QuantileSketch sketch(10);
  for (int i = 0; i < 60; ++i) sketch.add(0.0);  // e.g. jobs that never queued
  for (int i = 0; i < 40; ++i) sketch.add(1e20);  // beyond the grid: clamped to the max seen
  ASSERT_TRUE(sketch.approximate());
  const DistributionSummary s = sketch.summary();
  EXPECT_EQ(s.p50, 0.0);
  EXPECT_EQ(s.p90, 1e20);
  EXPECT_EQ(s.max, 1e20);
  QuantileSketch tiny(1);
  tiny.add(3e-7);
  tiny.add(3e-7);  // below the grid: the first bin, clamped to the values seen
  EXPECT_EQ(tiny.summary().p50, 3e-7);
}

TEST(QuantileSketch, EmptyHasNullStatistics) {
  QuantileSketch sketch;
  EXPECT_EQ(sketch.summary().count, 0u);
  EXPECT_TRUE(sketch.to_json().at("p50").is_null());
}

}  // namespace
}  // namespace gpumux
