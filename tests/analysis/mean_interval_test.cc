#include "analysis/stats/mean_interval.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/metrics/metric_catalogue.h"

namespace gpumux {
namespace {

TEST(StudentT, TableAndSeriesAgreeWithPublishedQuantiles) {
  EXPECT_DOUBLE_EQ(student_t_975(1), 12.706205);
  EXPECT_DOUBLE_EQ(student_t_975(4), 2.776445);
  EXPECT_DOUBLE_EQ(student_t_975(30), 2.042272);
  // Past the table: the series, against published quantiles.
  EXPECT_NEAR(student_t_975(40), 2.021075, 1e-5);
  EXPECT_NEAR(student_t_975(60), 2.000298, 1e-5);
  EXPECT_NEAR(student_t_975(120), 1.979930, 1e-5);
  EXPECT_NEAR(student_t_975(10000000), 1.959964, 1e-5);
  // The series meets the table where the table ends and keeps falling.
  EXPECT_NEAR(student_t_975(31), 2.039513, 1e-5);
  EXPECT_LT(student_t_975(31), student_t_975(30));
}

TEST(MeanInterval, MeanAndHalfWidth) {
  // 1, 2, 3, 4: mean 2.5, sample sd sqrt(5/3), t(3) = 3.182446.
  const MeanInterval m = mean_interval({1.0, 2.0, 3.0, 4.0});
  ASSERT_TRUE(m.mean && m.half_width);
  EXPECT_DOUBLE_EQ(*m.mean, 2.5);
  EXPECT_NEAR(*m.half_width, 3.182446 * std::sqrt(5.0 / 3.0) / 2.0, 1e-12);
  const MeanInterval same = mean_interval({7.0, 7.0, 7.0});
  EXPECT_DOUBLE_EQ(*same.mean, 7.0);
  EXPECT_DOUBLE_EQ(*same.half_width, 0.0);
}

TEST(MeanInterval, TooFewValues) {
  EXPECT_FALSE(mean_interval({}).mean);
  const MeanInterval one = mean_interval({3.5});
  EXPECT_DOUBLE_EQ(*one.mean, 3.5);
  EXPECT_FALSE(one.half_width);
}

TEST(MeanInterval, ClippedToTheDomain) {
  const ClippedInterval inside = clip_interval(10.0, 3.0, 0.0, INFINITY);
  EXPECT_DOUBLE_EQ(inside.low, 7.0);
  EXPECT_DOUBLE_EQ(inside.high, 13.0);
  EXPECT_FALSE(inside.clipped);
  const ClippedInterval below = clip_interval(10.0, 364.0 + 10.0, 0.0, INFINITY);
  EXPECT_DOUBLE_EQ(below.low, 0.0);
  EXPECT_DOUBLE_EQ(below.high, 384.0);
  EXPECT_TRUE(below.clipped);
  const ClippedInterval share = clip_interval(0.95, 0.1, 0.0, 1.0);
  EXPECT_DOUBLE_EQ(share.high, 1.0);
  EXPECT_TRUE(share.clipped);
  // No domain: a paired difference keeps its negative end.
  EXPECT_FALSE(clip_interval(-1.0, 5.0, -INFINITY, INFINITY).clipped);
}

TEST(MetricDomain, SharesInZeroOneOtherMetricsNonNegativeUnknownUnbounded) {
  EXPECT_EQ(metric_domain("gpu_allocation_ratio").high, 1.0);
  EXPECT_EQ(metric_domain("gpu_allocation_ratio").low, 0.0);
  EXPECT_EQ(metric_domain("jct_s.p95").low, 0.0);
  EXPECT_TRUE(std::isinf(metric_domain("jct_s.p95").high));
  EXPECT_EQ(metric_domain("requests.ttft_ms.p99 for llm-1").low, 0.0);
  EXPECT_TRUE(std::isinf(metric_domain("no.such.metric").low));
}

}  // namespace
}  // namespace gpumux
