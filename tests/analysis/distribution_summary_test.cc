#include "analysis/stats/distribution_summary.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace gpumux {
namespace {

TEST(DistributionSummary, NearestRankPercentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // 1..100, unsorted
  const auto s = summarize(v);
  EXPECT_EQ(s.count, 100u);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.p50, 50);
  EXPECT_DOUBLE_EQ(s.p90, 90);
  EXPECT_DOUBLE_EQ(s.p95, 95);
  EXPECT_DOUBLE_EQ(s.p99, 99);
  EXPECT_DOUBLE_EQ(s.max, 100);
}

TEST(DistributionSummary, SmallAndEmptySamples) {
  std::vector<double> one = {7};
  const auto s = summarize(one);
  EXPECT_DOUBLE_EQ(s.p50, 7);
  EXPECT_DOUBLE_EQ(s.p99, 7);
  std::vector<double> none;
  const auto e = summarize(none);
  EXPECT_EQ(e.count, 0u);
  EXPECT_DOUBLE_EQ(e.mean, 0);
  std::vector<double> three = {3, 1, 2};
  EXPECT_DOUBLE_EQ(summarize(three).p50, 2);
  EXPECT_DOUBLE_EQ(nearest_rank({1, 2, 3}, 0), 1);
}

// A percentile of no values is n/a: null in summary.json, never a 0 that reads as "instant".
TEST(DistributionSummary, EmptySampleHasNullStatistics) {
  std::vector<double> none;
  const auto j = summarize(none).to_json();
  EXPECT_EQ(j["count"], 0);
  for (const char* k : {"mean", "p50", "p90", "p95", "p99", "max"}) {
    EXPECT_TRUE(j[k].is_null()) << k;
  }
  std::vector<double> one = {0.0};
  EXPECT_EQ(summarize(one).to_json()["p95"], 0.0);  // a real zero stays a number
}

TEST(DistributionSummary, MeanDoesNotDependOnOrder) {
  std::vector<double> a = {1e16, 1, -1e16, 3, 0.1};
  std::vector<double> b = {0.1, 3, -1e16, 1, 1e16};
  EXPECT_EQ(summarize(a).mean, summarize(b).mean);
}

}  // namespace
}  // namespace gpumux
