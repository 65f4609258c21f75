#include "traces/io/csv_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sim/base/input_error.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::input_error_message;
using testing::TempFile;

std::vector<std::string> split(std::string_view line) {
  std::vector<std::string> fields;
  EXPECT_TRUE(split_csv_line(line, fields)) << line;
  return fields;
}

TEST(SplitCsvLine, PlainFields) { EXPECT_THAT(split("a,b,c"), ElementsAre("a", "b", "c")); }

TEST(SplitCsvLine, EmptyFieldsAreKept) {
  EXPECT_THAT(split(",a,,"), ElementsAre("", "a", "", ""));
  EXPECT_THAT(split(""), ElementsAre(""));
}

TEST(SplitCsvLine, QuotedFieldMayHoldCommas) {
  EXPECT_THAT(split("x,\"a,b\",y"), ElementsAre("x", "a,b", "y"));
}

TEST(SplitCsvLine, DoubledQuoteIsOneQuote) {
  EXPECT_THAT(split("\"say \"\"hi\"\"\",2"), ElementsAre("say \"hi\"", "2"));
  EXPECT_THAT(split("\"\"\"\""), ElementsAre("\""));
  EXPECT_THAT(split("\"\",z"), ElementsAre("", "z"));
}

TEST(SplitCsvLine, QuoteInsideUnquotedFieldIsLiteral) {
  EXPECT_THAT(split("ab\"c,d"), ElementsAre("ab\"c", "d"));
}

TEST(SplitCsvLine, UnterminatedQuoteFails) {
  std::vector<std::string> fields;
  EXPECT_FALSE(split_csv_line("a,\"bc", fields));
  EXPECT_FALSE(split_csv_line("\"a\"\"", fields));
}

// The splitting rules one character at a time, as they are stated: the reader appends runs of
// ordinary characters at once and must split every line exactly as this does.
bool split_one_character_at_a_time(std::string_view line, std::vector<std::string>& fields) {
  fields.assign(1, "");
  bool quoted = false;
  bool was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    std::string& current = fields.back();
    if (quoted) {
      if (c != '"') {
        current += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        current += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"' && current.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
      was_quoted = false;
    } else {
      current += c;
    }
  }
  return !quoted;
}

TEST(SplitCsvLine, SplitsRandomLinesAsTheRulesOneCharacterAtATime) {
  std::mt19937_64 rng(11);
  const std::string alphabet = "ab,\" \"x";
  std::vector<std::string> fast;
  std::vector<std::string> slow;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string line(rng() % 24, ' ');
    for (char& c : line) c = alphabet[rng() % alphabet.size()];
    const bool fast_ok = split_csv_line(line, fast);
    const bool slow_ok = split_one_character_at_a_time(line, slow);
    ASSERT_EQ(fast_ok, slow_ok) << line;
    if (fast_ok) {
      ASSERT_EQ(fast, slow) << line;
    }
  }
}

TEST(CsvReader, MissingFileIsInputErrorNamingIt) {
  const std::string msg = input_error_message([] { CsvReader r("/nonexistent/dir/x.csv"); });
  EXPECT_THAT(msg, HasSubstr("/nonexistent/dir/x.csv"));
  EXPECT_THAT(msg, HasSubstr("cannot open"));
}

TEST(CsvReader, HandlesCrlfAndCountsSkippedLines) {
  TempFile f("crlf.csv", "a,b\r\n\r\n# comment\r\n  \t\r\n1,\"x,y\"\r\n   # indented comment\n2,z");
  CsvReader r(f.path());
  std::vector<std::string> fields;
  ASSERT_TRUE(r.next(fields));
  EXPECT_THAT(fields, ElementsAre("a", "b"));
  EXPECT_EQ(r.line(), 1u);
  ASSERT_TRUE(r.next(fields));
  EXPECT_THAT(fields, ElementsAre("1", "x,y"));  // no trailing '\r' kept
  EXPECT_EQ(r.line(), 5u);
  EXPECT_EQ(r.where(), f.path() + ":5");
  ASSERT_TRUE(r.next(fields));
  EXPECT_THAT(fields, ElementsAre("2", "z"));  // last line without newline
  EXPECT_EQ(r.line(), 7u);
  EXPECT_FALSE(r.next(fields));
  EXPECT_EQ(r.skipped_lines(), 4u);
}

TEST(CsvReader, UnterminatedQuoteNamesFileAndLine) {
  TempFile f("quote.csv", "a,b\n1,2\n3,\"oops\n");
  CsvReader r(f.path());
  std::vector<std::string> fields;
  ASSERT_TRUE(r.next(fields));
  ASSERT_TRUE(r.next(fields));
  const std::string msg = input_error_message([&] { r.next(fields); });
  EXPECT_THAT(msg, HasSubstr(f.path() + ":3"));
  EXPECT_THAT(msg, HasSubstr("unterminated double quote"));
}

TEST(ParseNumberCell, AcceptsNumbersWithSurroundingBlanks) {
  EXPECT_DOUBLE_EQ(parse_number_cell(" 1.5\t", "f:1", "x", 0, 10), 1.5);
  EXPECT_DOUBLE_EQ(parse_number_cell("1e3", "f:1", "x", 0, 1e4), 1000.0);
  EXPECT_DOUBLE_EQ(parse_number_cell("-2", "f:1", "x", -5, 0), -2.0);
}

TEST(ParseNumberCell, WholeNumbersGiveTheDoubleFromCharsGives) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20000; ++trial) {
    std::string cell(1 + rng() % 17, '0');
    for (char& c : cell) c = static_cast<char>('0' + rng() % 10);
    if (trial % 7 == 0) cell = " " + cell + "\t";
    double expected = 0.0;
    const std::string_view t = trim_blanks(cell);
    std::from_chars(t.data(), t.data() + t.size(), expected);
    const double got = parse_number_cell(cell, "f:1", "x", 0, 1e18);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(expected)) << cell;
  }
  EXPECT_THAT(input_error_message([] { parse_number_cell("12", "t.csv:3", "num_gpu", 0, 8); }),
              HasSubstr("outside"));
}

TEST(ParseNumberCell, GarbageNamesPlaceAndField) {
  for (const char* bad : {"", "abc", "1.5x", "1,5", "nan", "inf", "  "}) {
    const std::string msg =
        input_error_message([&] { parse_number_cell(bad, "t.csv:7", "runtime_s", 0, 1e9); });
    EXPECT_THAT(msg, HasSubstr("t.csv:7")) << bad;
    EXPECT_THAT(msg, HasSubstr("field 'runtime_s'")) << bad;
    EXPECT_THAT(msg, HasSubstr("expected a number")) << bad;
  }
}

TEST(ParseNumberCell, OutOfRangeNamesTheRange) {
  const std::string msg =
      input_error_message([] { parse_number_cell("1.5", "t.csv:2", "sm_util", 0, 1); });
  EXPECT_THAT(msg, HasSubstr("t.csv:2: field 'sm_util'"));
  EXPECT_THAT(msg, HasSubstr("outside [0, 1]"));
  // The bounds themselves are valid.
  EXPECT_DOUBLE_EQ(parse_number_cell("1", "t.csv:2", "sm_util", 0, 1), 1.0);
  EXPECT_DOUBLE_EQ(parse_number_cell("0", "t.csv:2", "sm_util", 0, 1), 0.0);
}

TEST(ParseIntCell, AcceptsIntegers) {
  EXPECT_EQ(parse_int_cell("42", "f:1", "gpus", 1, 64), 42);
  EXPECT_EQ(parse_int_cell(" -3 ", "f:1", "priority", -10, 10), -3);
}

TEST(ParseIntCell, RejectsFractionsAndGarbage) {
  for (const char* bad : {"1.0", "2.5", "x", "", "1e3", "99999999999999999999"}) {
    const std::string msg =
        input_error_message([&] { parse_int_cell(bad, "t.csv:9", "gpus", 1, 1000000); });
    EXPECT_THAT(msg, HasSubstr("t.csv:9: field 'gpus'")) << bad;
    EXPECT_THAT(msg, HasSubstr("expected an integer")) << bad;
  }
}

TEST(ParseIntCell, OutOfRange) {
  const std::string msg = input_error_message([] { parse_int_cell("0", "t.csv:4", "gpus", 1, 8); });
  EXPECT_THAT(msg, HasSubstr("t.csv:4: field 'gpus': value 0 is outside [1, 8]"));
}

}  // namespace
}  // namespace gpumux
