#include "traces/fields/distribution.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <vector>

#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;
using json = nlohmann::json;

constexpr int kDraws = 20000;

Distribution parse(const json& v, double lo = -1e9, double hi = 1e9) {
  return Distribution::parse(v, "d.json", "/trace/defaults/x", "x", lo, hi);
}

std::vector<double> draws(const Distribution& d, int n = kDraws, std::uint64_t seed = 7) {
  Rng rng(seed);
  std::vector<double> out(n);
  for (auto& x : out) x = d.draw(rng);
  return out;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

TEST(Distribution, ConstantFromFactoryAndFromNumber) {
  const auto c = Distribution::constant(3.5);
  EXPECT_TRUE(c.is_constant());
  EXPECT_DOUBLE_EQ(c.mean_hint(), 3.5);
  for (double x : draws(c, 10)) EXPECT_EQ(x, 3.5);
  const auto p = parse(2.25);
  EXPECT_TRUE(p.is_constant());
  for (double x : draws(p, 10)) EXPECT_EQ(x, 2.25);
  EXPECT_EQ(p.to_json(), json(2.25));
}

TEST(Distribution, ConstantOutsideAllowedRangeIsError) {
  const std::string msg = input_error_message([] { parse(1.5, 0.0, 1.0); });
  EXPECT_THAT(msg, HasSubstr("d.json#/trace/defaults/x"));
  EXPECT_THAT(msg, HasSubstr("field 'x'"));
  EXPECT_THAT(msg, HasSubstr("values must lie in"));
}

TEST(Distribution, UniformStaysInRangeWithExpectedMean) {
  const auto d = parse({{"uniform", {2.0, 4.0}}});
  EXPECT_FALSE(d.is_constant());
  const auto v = draws(d);
  for (double x : v) {
    ASSERT_GE(x, 2.0);
    ASSERT_LE(x, 4.0);
  }
  EXPECT_NEAR(mean(v), 3.0, 0.03);
  EXPECT_DOUBLE_EQ(d.mean_hint(), 3.0);
  EXPECT_EQ(d.to_json(), json({{"uniform", {2.0, 4.0}}}));
}

TEST(Distribution, LognormalMedianIsTheGivenMedian) {
  const auto d = parse({{"lognormal", {{"median", 100.0}, {"sigma", 0.8}}}}, 0.0, 1e9);
  const auto v = draws(d);
  EXPECT_NEAR(median(v), 100.0, 4.0);
  EXPECT_NEAR(d.mean_hint(), 100.0, 1e-9);
  for (double x : v) ASSERT_GT(x, 0.0);
}

TEST(Distribution, LognormalIsClampedToTheAllowedRangeWithoutExplicitBounds) {
  // Allowed [1e-6, 1]: a wide lognormal around 0.5 must never leave it.
  const auto d = parse({{"lognormal", {{"median", 0.5}, {"sigma", 3.0}}}}, 1e-6, 1.0);
  for (double x : draws(d)) {
    ASSERT_GE(x, 1e-6);
    ASSERT_LE(x, 1.0);
  }
}

TEST(Distribution, ExponentialMean) {
  const auto d = parse({{"exponential", {{"mean", 50.0}}}}, 0.0, 1e9);
  const auto v = draws(d);
  EXPECT_NEAR(mean(v), 50.0, 2.0);
  for (double x : v) ASSERT_GE(x, 0.0);
}

TEST(Distribution, ChoiceFollowsWeights) {
  const auto d = parse({{"choice", {1, 2, 8}}, {"weights", {0.5, 0.3, 0.2}}});
  std::map<double, int> count;
  for (double x : draws(d)) ++count[x];
  ASSERT_EQ(count.size(), 3u);
  EXPECT_NEAR(count[1] / double(kDraws), 0.5, 0.02);
  EXPECT_NEAR(count[2] / double(kDraws), 0.3, 0.02);
  EXPECT_NEAR(count[8] / double(kDraws), 0.2, 0.02);
}

TEST(Distribution, ChoiceWithoutWeightsIsUniform) {
  const auto d = parse({{"choice", {10, 20}}});
  std::map<double, int> count;
  for (double x : draws(d)) ++count[x];
  ASSERT_EQ(count.size(), 2u);
  EXPECT_NEAR(count[10] / double(kDraws), 0.5, 0.02);
}

TEST(Distribution, ChoiceWithZeroWeightNeverDrawsIt) {
  const auto d = parse({{"choice", {1, 2, 3}}, {"weights", {1, 0, 1}}});
  for (double x : draws(d)) ASSERT_NE(x, 2.0);
}

TEST(Distribution, MinMaxClampTheDraws) {
  const auto d = parse({{"uniform", {0.0, 10.0}}, {"min", 2.0}, {"max", 5.0}});
  const auto v = draws(d);
  int at_min = 0, at_max = 0;
  for (double x : v) {
    ASSERT_GE(x, 2.0);
    ASSERT_LE(x, 5.0);
    at_min += x == 2.0;
    at_max += x == 5.0;
  }
  EXPECT_GT(at_min, kDraws / 10);  // ~20% of the mass is clamped to the bound
  EXPECT_GT(at_max, kDraws / 4);   // ~50%
}

TEST(Distribution, ClampMakesAWideDistributionAcceptable) {
  // [0, 2] exceeds the allowed [0, 1] unless clamped.
  EXPECT_THROW(parse({{"uniform", {0.0, 2.0}}}, 0.0, 1.0), InputError);
  const auto d = parse({{"uniform", {0.0, 2.0}}, {"max", 1.0}}, 0.0, 1.0);
  for (double x : draws(d, 1000)) ASSERT_LE(x, 1.0);
}

TEST(Distribution, Deterministic) {
  const auto d = parse({{"lognormal", {{"median", 10.0}, {"sigma", 1.0}}}}, 0.0, 1e9);
  EXPECT_EQ(draws(d, 100, 3), draws(d, 100, 3));
  EXPECT_NE(draws(d, 100, 3), draws(d, 100, 4));
}

struct BadDistribution {
  const char* label;
  json value;
  double lo, hi;
  const char* field;  // expected in "field '...'"
  const char* what;
};

void PrintTo(const BadDistribution& c, std::ostream* os) { *os << c.label; }

class BadDistributionTest : public ::testing::TestWithParam<BadDistribution> {};

TEST_P(BadDistributionTest, IsInputErrorNamingPlaceAndField) {
  const auto& c = GetParam();
  const std::string msg = input_error_message([&] { parse(c.value, c.lo, c.hi); });
  EXPECT_THAT(msg, HasSubstr("d.json#/trace/defaults/x")) << c.label;
  if (*c.field) {
    EXPECT_THAT(msg, HasSubstr(std::string("field '") + c.field + "'")) << c.label;
  }
  EXPECT_THAT(msg, HasSubstr(c.what)) << c.label;
}

INSTANTIATE_TEST_SUITE_P(
    All, BadDistributionTest,
    ::testing::Values(
        BadDistribution{"uniform above range", {{"uniform", {0.5, 2.0}}}, 0, 1, "x", "must lie in"},
        BadDistribution{
            "uniform below range", {{"uniform", {-1.0, 0.5}}}, 0, 1, "x", "must lie in"},
        BadDistribution{"uniform reversed", {{"uniform", {0.9, 0.1}}}, 0, 1, "x", "must lie in"},
        BadDistribution{"uniform not pair", {{"uniform", {1.0}}}, 0, 10, "x.uniform", "[lo, hi]"},
        BadDistribution{
            "uniform string bound", {{"uniform", {"a", 1.0}}}, 0, 10, "x", "expected a number"},
        BadDistribution{"choice outside range", {{"choice", {1, 2, 16}}}, 1, 8, "x", "must lie in"},
        BadDistribution{
            "choice empty", {{"choice", json::array()}}, 0, 10, "x.choice", "non-empty array"},
        BadDistribution{"choice weights length",
                        {{"choice", {1, 2}}, {"weights", {1}}},
                        0,
                        10,
                        "x.weights",
                        "one weight per choice"},
        BadDistribution{"choice negative weight",
                        {{"choice", {1, 2}}, {"weights", {1, -1}}},
                        0,
                        10,
                        "x.weights",
                        ">= 0"},
        BadDistribution{"choice zero weights",
                        {{"choice", {1, 2}}, {"weights", {0, 0}}},
                        0,
                        10,
                        "x.weights",
                        "not all be zero"},
        BadDistribution{"no kind", {{"min", 1}}, 0, 10, "x", "expected a number or one of"},
        BadDistribution{
            "unknown key", {{"uniform", {0, 1}}, {"mean", 3}}, 0, 10, "mean", "unknown key"},
        BadDistribution{"lognormal negative sigma",
                        {{"lognormal", {{"median", 1}, {"sigma", -1}}}},
                        0,
                        10,
                        "sigma",
                        "expected a number in"},
        BadDistribution{"lognormal missing median",
                        {{"lognormal", {{"sigma", 1}}}},
                        0,
                        10,
                        "median",
                        "required key is missing"},
        BadDistribution{"exponential unknown key",
                        {{"exponential", {{"mean", 1}, {"rate", 2}}}},
                        0,
                        10,
                        "rate",
                        "unknown key"},
        BadDistribution{"string", json("fast"), 0, 10, "", "expected an object"}),
    [](const auto& p) {
      std::string n = p.param.label;
      for (char& c : n) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return n;
    });

}  // namespace
}  // namespace gpumux
