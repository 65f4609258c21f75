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

// The cells as views (CsvPublicSource's path): the same cells, line numbers and errors as the
// string cells, over quotes, CRLF, skipped lines and rows that straddle the read buffer's refills.
TEST(CsvReader, ViewCellsAreTheStringCells) {
  std::string text = "a,b\r\n\r\n# comment\r\n1,\"x,y\"\r\n\"q\"\"\",,\n";
  std::mt19937_64 rng(7);
  for (int i = 0; i < 6000; ++i) {  // about 200 KB: rows cross the 64 KiB buffer's ends
    std::string row = std::to_string(i);
    for (int c = 0; c < 5; ++c) row += "," + std::string(rng() % 30, static_cast<char>('a' + c));
    if (i % 500 == 0) row += ",\"quoted, cell\"";
    if (i % 700 == 0) text += "\n";  // a blank line now and then
    text += row + (i % 3 == 0 ? "\r\n" : "\n");
  }
  text += "last,row";  // no newline at the end
  TempFile f("views.csv", text);
  CsvReader strings(f.path());
  CsvReader views(f.path());
  std::vector<std::string> string_cells;
  std::vector<std::string_view> view_cells;
  std::size_t rows = 0;
  while (strings.next(string_cells)) {
    ASSERT_TRUE(views.next(view_cells));
    ASSERT_EQ(views.line(), strings.line());
    ASSERT_EQ(std::vector<std::string>(view_cells.begin(), view_cells.end()), string_cells)
        << "line " << strings.line();
    ++rows;
  }
  EXPECT_FALSE(views.next(view_cells));
  EXPECT_EQ(views.skipped_lines(), strings.skipped_lines());
  EXPECT_EQ(rows, 6004u);  // the first three, 6,000 generated, the last
  EXPECT_THAT(string_cells, ElementsAre("last", "row"));
}

TEST(CsvReader, ViewCellsOfQuotedAndEmptyCells) {
  TempFile f("q.csv", "\"a,b\",\"say \"\"hi\"\"\",plain\n,,\n\"open\n");
  CsvReader r(f.path());
  std::vector<std::string_view> cells;
  ASSERT_TRUE(r.next(cells));
  EXPECT_THAT(cells, ElementsAre("a,b", "say \"hi\"", "plain"));
  ASSERT_TRUE(r.next(cells));
  EXPECT_THAT(cells, ElementsAre("", "", ""));
  const std::string msg = input_error_message([&] { r.next(cells); });
  EXPECT_THAT(msg, HasSubstr(f.path() + ":3"));
  EXPECT_THAT(msg, HasSubstr("unterminated double quote"));
}

TEST(CsvReader, EmptyFileHasNoRows) {
  TempFile f("empty.csv", "");
  CsvReader r(f.path());
  std::vector<std::string_view> cells;
  EXPECT_FALSE(r.next(cells));
  EXPECT_EQ(r.skipped_lines(), 0u);
}

// The unquoted split finds commas 16 bytes at a time: every line length and comma place around
// the block edges splits as the rules do.
TEST(SplitCsvLine, ViewSplitMatchesTheRulesAtEveryLength) {
  std::mt19937_64 rng(13);
  std::vector<std::string_view> cells;
  std::vector<std::string> unquoted;
  std::vector<std::string> expected;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string line(rng() % 70, 'x');
    for (char& c : line) {
      const auto r = rng() % 10;
      c = r < 3 ? ',' : (r == 3 && trial % 4 == 0 ? '"' : static_cast<char>('a' + r));
    }
    const bool ok = split_csv_line(line, cells, unquoted);
    ASSERT_EQ(ok, split_one_character_at_a_time(line, expected)) << line;
    if (!ok) continue;
    ASSERT_EQ(std::vector<std::string>(cells.begin(), cells.end()), expected) << line;
  }
}

// read_plain_number, the fast path of number cells: exactly from_chars' double for the plain
// decimals it takes, and false (leaving the cell to parse_number_cell) for everything else.
TEST(ReadPlainNumber, DecimalsGiveTheDoubleFromCharsGives) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 200000; ++trial) {
    const int digits = 1 + static_cast<int>(rng() % 15);
    std::string cell(static_cast<std::size_t>(digits), '0');
    for (char& c : cell) c = static_cast<char>('0' + rng() % 10);
    if (digits > 1 && trial % 3 != 0) {
      cell.insert(1 + rng() % static_cast<std::size_t>(digits - 1), ".");
    }
    if (trial % 11 == 0) cell = "\t" + cell + " ";
    double expected = 0.0;
    const std::string_view t = trim_blanks(cell);
    ASSERT_EQ(std::from_chars(t.data(), t.data() + t.size(), expected).ec, std::errc()) << cell;
    double got = -1.0;
    ASSERT_TRUE(read_plain_number(cell, 0, 1e18, got)) << cell;
    ASSERT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(expected)) << cell;
    ASSERT_EQ(std::bit_cast<std::uint64_t>(parse_number_cell(cell, "f:1", "x", 0, 1e18)),
              std::bit_cast<std::uint64_t>(expected))
        << cell;
  }
  // Cells read by hand: the usual trace shapes.
  double v = 0.0;
  ASSERT_TRUE(read_plain_number("806.59", 0, 1e12, v));
  EXPECT_EQ(v, 806.59);
  ASSERT_TRUE(read_plain_number("346177.5", 0, 1e12, v));
  EXPECT_EQ(v, 346177.5);
  ASSERT_TRUE(read_plain_number("0.1", 0, 1, v));
  EXPECT_EQ(v, 0.1);
}

TEST(ReadPlainNumber, OtherFormsAndOutOfRangeAreLeftToTheFullParse) {
  double v = 42.0;
  for (const char* other : {"", "  ", ".5", "5.", "1.2.3", "1e3", "-1", "+1", "0x10", "1,5",
                            "1 2", "nan", "inf", "1234567890123456", "1.234567890123456",
                            "12a", "a12"}) {
    EXPECT_FALSE(read_plain_number(other, -1e18, 1e18, v)) << other;
  }
  EXPECT_FALSE(read_plain_number("12", 0, 8, v));
  EXPECT_FALSE(read_plain_number("0.5", 1, 8, v));
  EXPECT_EQ(v, 42.0);  // untouched when false
  // What the fast path leaves, the full parse still reads or names.
  EXPECT_EQ(parse_number_cell(".5", "f:1", "x", 0, 1), 0.5);
  EXPECT_EQ(parse_number_cell("1e3", "f:1", "x", 0, 1e4), 1000.0);
  EXPECT_THAT(input_error_message([] { parse_number_cell("1.2.3", "t.csv:4", "num_gpu", 0, 8); }),
              HasSubstr("expected a number, got '1.2.3'"));
  EXPECT_THAT(input_error_message([] { parse_number_cell("12.5", "t.csv:4", "num_gpu", 0, 8); }),
              HasSubstr("value 12.5 is outside"));
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
