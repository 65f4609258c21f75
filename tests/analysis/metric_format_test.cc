// The digits the tables print a metric with (metric_format.h): every row of gpumux compare has
// them, and a single value is printed with them.
#include "analysis/metrics/metric_format.h"

#include <gtest/gtest.h>

#include "analysis/compare/compare_metrics.h"
#include "analysis/report/svg_chart.h"

namespace gpumux {
namespace {

TEST(MetricFormat, EveryCompareRowHasOne) {
  for (const auto& row : compare_metrics(true, true, true)) {
    const auto f = metric_format(row.name);
    ASSERT_TRUE(f.has_value()) << row.name;
    EXPECT_EQ(f->digits, row.digits) << row.name;
    EXPECT_EQ(f->count, row.count) << row.name;
  }
  EXPECT_FALSE(metric_format("makespan_s").has_value());
}

TEST(MetricFormat, ValuesInTheMetricsDigitsOthersByTheFallback) {
  EXPECT_EQ(metric_value_text("gpu_allocation_ratio", 0.49944, short_number), "0.499");
  EXPECT_EQ(metric_value_text("jct_s.p95", 366, short_number), "366.0");
  EXPECT_EQ(metric_value_text("jobs.finished", 60, short_number), "60");
  EXPECT_EQ(metric_value_text("requests.slo_attainment", 0.99951, short_number), "0.9995");
  EXPECT_EQ(metric_value_text("makespan_s", 3412.25, short_number), "3412");
}

}  // namespace
}  // namespace gpumux
