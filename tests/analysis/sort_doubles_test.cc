// sort_doubles against std::sort: the same doubles in the same places.
#include "analysis/stats/sort_doubles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace gpumux {
namespace {

void expect_sorted_as_std_sort(std::vector<double> values) {
  std::vector<double> expected = values;
  std::sort(expected.begin(), expected.end());
  sort_doubles(values);
  ASSERT_EQ(values.size(), expected.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint64_t>(values[i]), std::bit_cast<std::uint64_t>(expected[i]))
        << "index " << i << " of " << values.size();
  }
}

TEST(SortDoubles, RandomSamplesOfEverySizeSortAsStdSort) {
  std::mt19937_64 rng(17);
  std::exponential_distribution<double> seconds(1.0 / 3600.0);
  std::normal_distribution<double> signed_values(0.0, 1e3);
  for (std::size_t n : {0u, 1u, 2u, 511u, 512u, 513u, 5000u, 100000u}) {
    std::vector<double> jct(n), mixed(n), repeated(n), raw(n);
    for (std::size_t i = 0; i < n; ++i) {
      jct[i] = std::round(seconds(rng) * 1e6) / 1e6;  // microsecond times, as jobs' are
      mixed[i] = signed_values(rng);
      repeated[i] = static_cast<double>(rng() % 7);  // many equal values
      double x = std::bit_cast<double>(rng());
      while (x != x) x = std::bit_cast<double>(rng());  // any bits but NaN
      raw[i] = x;
    }
    if (n > 2) {
      mixed[0] = std::numeric_limits<double>::infinity();
      mixed[1] = -std::numeric_limits<double>::infinity();
      mixed[2] = std::numeric_limits<double>::denorm_min();
    }
    expect_sorted_as_std_sort(jct);
    expect_sorted_as_std_sort(mixed);
    expect_sorted_as_std_sort(repeated);
    expect_sorted_as_std_sort(raw);
  }
}

TEST(SortDoubles, NegativeZeroComesBeforePositiveZero) {
  std::vector<double> values(1000, 1.0);
  values[10] = 0.0;
  values[900] = -0.0;
  sort_doubles(values);
  EXPECT_TRUE(std::signbit(values[0]));
  EXPECT_EQ(values[0], 0.0);
  EXPECT_FALSE(std::signbit(values[1]));
  EXPECT_EQ(values[2], 1.0);
}

}  // namespace
}  // namespace gpumux
