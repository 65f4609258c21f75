// CountHistogram keeps a count per distinct value and summarises exactly as summarize() does the
// full sample (jobs killed per out-of-memory event: MetricsCollector's cascade sizes).
#include "analysis/stats/count_histogram.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <vector>

namespace gpumux {
namespace {

TEST(CountHistogram, EmptyHasCountZeroAndNullStatistics) {
  const CountHistogram h;
  EXPECT_EQ(h.size(), 0u);
  const DistributionSummary s = h.summary();
  EXPECT_EQ(s.count, 0u);
  EXPECT_TRUE(s.to_json()["p50"].is_null());
}

TEST(CountHistogram, SummaryIsExactlyTheFullSamples) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 200; ++trial) {
    std::uniform_int_distribution<std::uint64_t> value(0, trial % 7 == 0 ? 1 : 60);
    std::uniform_int_distribution<int> length(1, 400);
    const int n = length(rng);
    CountHistogram h;
    std::vector<double> sample;
    for (int i = 0; i < n; ++i) {
      const std::uint64_t v = value(rng);
      h.add(v);
      sample.push_back(static_cast<double>(v));
    }
    const DistributionSummary want = summarize(sample);
    const DistributionSummary got = h.summary();
    SCOPED_TRACE(trial);
    EXPECT_EQ(h.size(), static_cast<std::uint64_t>(n));
    EXPECT_EQ(got.to_json().dump(), want.to_json().dump());  // the same doubles, bit for bit
  }
}

TEST(CountHistogram, AMillionEventsSummariseExactly) {
  CountHistogram h;
  for (int i = 0; i < 1'000'000; ++i) h.add(static_cast<std::uint64_t>(1 + i % 3));
  const DistributionSummary s = h.summary();
  EXPECT_EQ(s.count, 1'000'000u);
  EXPECT_DOUBLE_EQ(s.mean, 2.0 - 1.0 / 1'000'000);  // 333,334 ones, 333,333 twos and threes
  EXPECT_EQ(s.p50, 2.0);
  EXPECT_EQ(s.p99, 3.0);
  EXPECT_EQ(s.max, 3.0);
}

}  // namespace
}  // namespace gpumux
