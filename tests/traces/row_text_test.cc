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
