// TextInput (plain and gzip bytes, line numbers) and the CSV reader over it: a ".gz" input reads
// as its plain content, and a gzip file cut short is an InputError, never a shorter input.
#include "traces/io/text_input.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tests/traces/test_files.h"
#include "traces/io/csv_reader.h"

namespace gpumux {
namespace {

using testing::can_test_gzip;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::input_error_message;
using testing::TempFile;
using testing::write_gzip;

std::vector<std::string> all_lines(TextInput& in) {
  std::vector<std::string> lines;
  std::string line;
  while (in.next_line(line)) lines.push_back(line);
  return lines;
}

TEST(TextInput, LinesWithoutTheirEndsAndLineNumbers) {
  TempFile f("lines.txt", "a\r\n\nbc\nlast");
  TextInput in(f.path());
  std::string line;
  EXPECT_EQ(in.line(), 1u);
  ASSERT_TRUE(in.next_line(line));
  EXPECT_EQ(line, "a");  // no '\r'
  EXPECT_EQ(in.line(), 2u);
  ASSERT_TRUE(in.next_line(line));
  EXPECT_EQ(line, "");
  ASSERT_TRUE(in.next_line(line));
  EXPECT_EQ(line, "bc");
  EXPECT_EQ(in.where(), f.path() + ":4");
  ASSERT_TRUE(in.next_line(line));
  EXPECT_EQ(line, "last");  // no newline at the end
  EXPECT_FALSE(in.next_line(line));
  EXPECT_FALSE(in.next_line(line));  // and stays at the end
}

// Lines longer than the read buffer (64 KiB) and lines that straddle its refills come whole.
TEST(TextInput, LinesAcrossBufferRefills) {
  std::string text;
  std::vector<std::string> expected;
  for (int i = 0; i < 3000; ++i)
    expected.push_back(std::string(static_cast<std::size_t>(i % 97), 'x') + std::to_string(i));
  expected.push_back(std::string(200000, 'y'));
  expected.push_back("end");
  for (const auto& l : expected) text += l + "\n";
  TempFile f("long.txt", text);
  TextInput in(f.path());
  EXPECT_EQ(all_lines(in), expected);
  EXPECT_EQ(in.line(), expected.size() + 1);
}

// The line as a view: the same lines, line numbers, and first-line rules as the string form.
TEST(TextInput, ViewLinesAreTheStringLines) {
  std::string text = "\xEF\xBB\xBFhead\r\n";  // a byte order mark, dropped from line 1
  for (int i = 0; i < 5000; ++i) {
    text += std::string(static_cast<std::size_t>(i % 113), 'v') + std::to_string(i);
    text += i % 2 == 0 ? "\r\n" : "\n";
  }
  text += std::string(100000, 'w') + "\nend";
  TempFile f("views.txt", text);
  TextInput strings(f.path());
  TextInput views(f.path());
  std::string line;
  std::string_view view;
  std::size_t n = 0;
  while (strings.next_line(line)) {
    ASSERT_TRUE(views.next_line(view));
    ASSERT_EQ(view, line) << "line " << n + 1;
    ASSERT_EQ(views.line(), strings.line());
    ++n;
  }
  EXPECT_FALSE(views.next_line(view));
  EXPECT_EQ(n, 5003u);  // the header, 5,000 lines, the long one, "end"
  TextInput first(f.path());
  ASSERT_TRUE(first.next_line(view));
  EXPECT_EQ(view, "head");
  TempFile cr("cr.txt", "a\rb\rc\n");
  TextInput cr_only(cr.path());
  EXPECT_THAT(input_error_message([&] { cr_only.next_line(view); }), HasSubstr("CR only"));
}

TEST(TextInput, BytesThroughTheIterator) {
  TempFile f("bytes.txt", "[1,\n2]");
  TextInput in(f.path());
  EXPECT_EQ(std::string(TextInputIterator(in), TextInputIterator()), "[1,\n2]");
  EXPECT_EQ(in.line(), 2u);
}

TEST(TextInput, MissingFileNamesIt) {
  for (const char* path : {"/nonexistent/x.txt", "/nonexistent/x.csv.gz"}) {
    const std::string msg = input_error_message([&] { TextInput in(path); });
    EXPECT_THAT(msg, HasSubstr(path));
    // A build without zlib answers a ".gz" path with its own error, naming the file too.
    if (gzip_supported()) {
      EXPECT_THAT(msg, HasSubstr("cannot open"));
    }
  }
}

TEST(TextInput, FolderIsAReadErrorNamingIt) {
  TempFile f("inside.txt", "x");
  const std::string msg = input_error_message([&] {
    TextInput in(f.dir());
    std::string line;
    in.next_line(line);
  });
  EXPECT_THAT(msg, HasSubstr(f.dir() + ":1"));
  EXPECT_THAT(msg, HasSubstr("read error: Is a directory"));
}

TEST(CsvReaderGzip, ReadsLikeThePlainFile) {
  if (!can_test_gzip()) GTEST_SKIP() << "no zlib in this build, or no gzip command";
  const std::string text = "a,b\r\n# comment\n1,\"x,y\"\n\n2,z\n";
  TempFile gz("rows.csv.gz", "");
  write_gzip(gz.path(), text);
  CsvReader r(gz.path());
  std::vector<std::string> fields;
  ASSERT_TRUE(r.next(fields));
  EXPECT_THAT(fields, ElementsAre("a", "b"));
  ASSERT_TRUE(r.next(fields));
  EXPECT_THAT(fields, ElementsAre("1", "x,y"));
  EXPECT_EQ(r.where(), gz.path() + ":3");
  ASSERT_TRUE(r.next(fields));
  EXPECT_THAT(fields, ElementsAre("2", "z"));
  EXPECT_EQ(r.line(), 5u);
  EXPECT_FALSE(r.next(fields));
  EXPECT_EQ(r.line(), 5u);  // the end does not move the line
  EXPECT_EQ(r.skipped_lines(), 2u);
}

// zlib reports a file cut short only as an error at its end; it must not read as complete.
TEST(CsvReaderGzip, TruncatedFileIsAnInputError) {
  if (!can_test_gzip()) GTEST_SKIP() << "no zlib in this build, or no gzip command";
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += "row" + std::to_string(i) + "," + std::to_string(i * 7919 % 10007) + "\n";
  TempFile gz("rows.csv.gz", "");
  write_gzip(gz.path(), text);
  const auto count_rows = [&] {
    CsvReader r(gz.path());
    std::vector<std::string> fields;
    int n = 0;
    while (r.next(fields)) ++n;
    return n;
  };
  EXPECT_EQ(count_rows(), 20000);  // the whole file reads
  std::filesystem::resize_file(gz.path(), std::filesystem::file_size(gz.path()) / 2);
  const std::string msg = input_error_message([&] { count_rows(); });
  EXPECT_THAT(msg, HasSubstr(gz.path() + ":"));
  EXPECT_THAT(msg, HasSubstr("truncated or damaged"));
}

}  // namespace
}  // namespace gpumux
