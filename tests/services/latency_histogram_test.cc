#include "sim/services/latency_histogram.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace gpumux {
namespace {

std::vector<std::pair<double, double>> cdf_of(const LatencyHistogram& h) {
  std::vector<std::pair<double, double>> out;
  h.for_each_cdf_point([&](double us, double share) { out.emplace_back(us, share); });
  return out;
}

TEST(LatencyHistogramCdf, EmptyHasNoPoints) { EXPECT_TRUE(cdf_of(LatencyHistogram()).empty()); }

// Three requests at 10 ms and one at 100 ms: two occupied bins, shares 3/4 and 1, each point at
// the upper edge of its bin (within the 1% bin width of the latency).
TEST(LatencyHistogramCdf, OnePointPerOccupiedBinAtItsUpperEdge) {
  LatencyHistogram h;
  for (int i = 0; i < 3; ++i) h.add(10'000.0);
  h.add(100'000.0);
  const auto cdf = cdf_of(h);
  ASSERT_EQ(cdf.size(), 2u);
  EXPECT_GT(cdf[0].first, 10'000.0);
  EXPECT_LT(cdf[0].first, 10'000.0 * LatencyHistogram::kGrowth);
  EXPECT_DOUBLE_EQ(cdf[0].second, 0.75);
  EXPECT_GT(cdf[1].first, 100'000.0);
  EXPECT_LT(cdf[1].first, 100'000.0 * LatencyHistogram::kGrowth);
  EXPECT_DOUBLE_EQ(cdf[1].second, 1.0);
}

// Property: increasing in latency and share, ending at 1, and consistent with the percentiles.
TEST(LatencyHistogramCdf, MonotoneEndsAtOneAndAgreesWithPercentiles) {
  LatencyHistogram h;
  for (int i = 1; i <= 5000; ++i) h.add(100.0 * i, i % 3 == 0 ? 0.5 : 1.0);
  const auto cdf = cdf_of(h);
  ASSERT_FALSE(cdf.empty());
  for (std::size_t k = 1; k < cdf.size(); ++k) {
    EXPECT_GT(cdf[k].first, cdf[k - 1].first);
    EXPECT_GT(cdf[k].second, cdf[k - 1].second);
  }
  EXPECT_DOUBLE_EQ(cdf.back().second, 1.0);
  for (double q : {0.5, 0.95, 0.99}) {
    const double p = h.percentile_us(q);
    // The first point at or above the percentile holds at least q of the requests.
    for (const auto& [us, share] : cdf) {
      if (us >= p) {
        EXPECT_GE(share, q - 1e-12) << q;
        break;
      }
    }
  }
}

}  // namespace
}  // namespace gpumux
