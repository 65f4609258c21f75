// RowText and the value writers behind jobs.csv and the native trace format: the same text as
// the general conversions they shortcut, and CSV quoting.
#include "traces/formats/row_text.h"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "traces/formats/trace_writer.h"

namespace gpumux {
namespace {

std::string general(double x) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, end);
}

std::string written(double x) {
  char buf[kMaxValueChars];
  return std::string(buf, write_double(buf, x));
}

TEST(RowText, DoublesAreWrittenAsToCharsWritesThem) {
  // Every whole number around the integer shortcut's edge (|x| < 10,000), then random doubles.
  for (int i = -20000; i <= 20000; ++i) {
    ASSERT_EQ(written(i), general(i)) << i;
    ASSERT_EQ(written(i + 0.5), general(i + 0.5)) << i;
  }
  EXPECT_EQ(written(-0.0), "-0");
  EXPECT_EQ(written(0.0), "0");
  EXPECT_EQ(written(1e5), general(1e5));
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 100000; ++trial) {
    const double x = std::bit_cast<double>(rng());
    if (x != x) continue;  // NaN: both write some "nan"
    ASSERT_EQ(written(x), general(x)) << trial;
  }
}

TEST(RowText, IntegersAreWrittenAsToCharsWritesThem) {
  auto general_int = [](auto x) {
    char buf[32];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
  };
  auto check = [&](std::int64_t x) {
    char buf[kMaxValueChars];
    ASSERT_EQ(std::string(buf, write_integer(buf, x)), general_int(x)) << x;
    const auto u = static_cast<std::uint64_t>(x);
    ASSERT_EQ(std::string(buf, write_unsigned(buf, u)), general_int(u)) << u;
  };
  for (std::int64_t i = -1000; i <= 100000; ++i) check(i);
  // Each digit count's edges (9, 10, 99, 100, ...), both signs, and the extremes.
  // 10^0 .. 10^18; stops before p * 10 would overflow (signed overflow is undefined).
  for (std::int64_t p = 1;; p *= 10) {
    for (const std::int64_t x : {p - 1, p, p + 1}) {
      check(x);
      check(-x);
    }
    if (p > std::numeric_limits<std::int64_t>::max() / 10) break;
  }
  check(std::numeric_limits<std::int64_t>::max());
  check(std::numeric_limits<std::int64_t>::min());
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 100000; ++trial) {
    const std::uint64_t bits = rng();
    check(static_cast<std::int64_t>(bits >> (bits % 64)));
  }
  // Seconds from microseconds: whole, fractional with zeros kept inside and dropped at the end,
  // negative.
  const std::pair<std::int64_t, const char*> seconds[] = {
      {0, "0"},           {1, "0.000001"},     {999'999, "0.999999"},
      {1'000'000, "1"},   {1'500'000, "1.5"},  {-2'000'001, "-2.000001"},
      {-1'000'000, "-1"}, {123'456'789'012, "123456.789012"}};
  for (const auto& [us, text] : seconds) {
    char buf[kMaxValueChars];
    EXPECT_EQ(std::string(buf, write_seconds(buf, Time::from_us(us))), text) << us;
  }
}

TEST(RowText, CellsAreQuotedExactlyWhenTheyMustBe) {
  for (const char* plain : {"", "abc", "a b", "x#y", "  a", "u-12.5"}) {
    EXPECT_FALSE(csv_cell_needs_quotes(plain)) << plain;
  }
  for (const char* quoted : {"a,b", "say \"hi\"", "line\nbreak", "cr\r", "#comment", "  \t#x"}) {
    EXPECT_TRUE(csv_cell_needs_quotes(quoted)) << quoted;
  }
  RowText row;
  row.put_csv_cell("a,\"b\"");
  row.put(',');
  row.put_csv_cell("plain");
  EXPECT_EQ(row.text(), "\"a,\"\"b\"\"\",plain");
}

TEST(RowText, ARowLongerThanTheBufferGrowsAndMatchesTheStringAppends) {
  RowText row;
  std::string expected;
  const std::string long_id(1000, 'j');
  for (int i = 0; i < 50; ++i) {
    row.put_csv_cell(long_id);
    append_csv_cell(expected, long_id);
    row.put_seconds(Time::from_us(1'500'000 + i));
    append_seconds(expected, Time::from_us(1'500'000 + i));
    row.put_integer(-i);
    append_integer(expected, -i);
    row.put_double(0.1 * i);
    append_double(expected, 0.1 * i);
  }
  EXPECT_EQ(row.text(), expected);
  row.clear();
  row.put_unsigned(std::numeric_limits<std::uint64_t>::max());
  row.put(',');
  row.put_integer(std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(row.text(), "18446744073709551615,-9223372036854775808");
  row.clear();
  EXPECT_EQ(row.text(), "");
}

}  // namespace
}  // namespace gpumux
