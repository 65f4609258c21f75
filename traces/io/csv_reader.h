// The one streaming CSV reader: every CSV input (traces, public-trace tables, nodes CSV, openb
// lists, probe measurements, memory series) is read through it, with line numbers for error
// messages.
//
// Supports the common dialect: comma separator, optional double quotes around a field ("" for a
// quote inside), CRLF or LF line ends. A quoted field may not span lines (no trace needs it).
// Bytes come through TextInput (traces/io/text_input.h): a path ending in ".gz" is decompressed on
// the fly, and a gzip file cut short is an InputError, never a shorter input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "traces/io/text_input.h"

namespace gpumux {

class CsvReader {
 public:
  // Throws InputError when the file cannot be opened (or is a ".gz" and the build has no zlib).
  explicit CsvReader(std::string path) : in_(std::move(path)) {}

  // Reads the next non-blank, non-comment ('#') line into `fields`; returns false at the end.
  // Skipped blank and comment lines are counted. Throws InputError on a malformed quote, a read
  // error or a damaged gzip file.
  bool next(std::vector<std::string>& fields);
  // The same, with the cells as views valid until the next call: slices of the line as read
  // (no copy, no allocation once the vector has room) unless the line has quotes, whose cells
  // are unquoted into strings the reader keeps.
  bool next(std::vector<std::string_view>& cells);

  const std::string& path() const { return in_.path(); }
  // 1-based number of the line last read (0 before the first); unchanged by a next() that
  // returns false.
  std::uint64_t line() const { return line_; }
  std::string where() const { return path() + ":" + std::to_string(line_); }
  std::uint64_t skipped_lines() const { return skipped_; }

 private:
  // The next non-blank, non-comment line (counting the skipped ones), or false at the end.
  bool next_row_text(std::string_view& text);

  TextInput in_;
  std::vector<std::string> unquoted_;  // a quoted line's cells, for next(string_view cells)
  std::uint64_t line_ = 0;
  std::uint64_t skipped_ = 0;
};

// Splits one CSV line into `fields` (see CsvReader), reusing its strings. Returns false on an
// unterminated quote.
bool split_csv_line(std::string_view line, std::vector<std::string>& fields);
// The same as views: slices of `line` when it has no quote; otherwise the cells are unquoted
// into `unquoted` (reused) and the views point there.
bool split_csv_line(std::string_view line, std::vector<std::string_view>& cells,
                    std::vector<std::string>& unquoted);

// `cell` without the spaces and tabs around it.
std::string_view trim_blanks(std::string_view cell);

// Strict number parsing for trace cells; throw InputError at `where` naming `field`.
double parse_number_cell(std::string_view text, const std::string& where, std::string_view field,
                         double min, double max);
// The fast path of parse_number_cell, which throws nothing and needs no "file:line": true, with
// the same double, when `text` (blanks around it allowed) is a plain decimal of at most 15
// digits ("806.59", "12") within [min, max]; false for anything else (other forms, bad text, out
// of range), which the caller then hands to parse_number_cell for the value or the error.
bool read_plain_number(std::string_view text, double min, double max, double& value);
std::int64_t parse_int_cell(std::string_view text, const std::string& where, std::string_view field,
                            std::int64_t min, std::int64_t max);

}  // namespace gpumux
