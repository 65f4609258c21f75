// A PublicTraceSource over a CSV file with a header row: the loaders of pai-sim, dlrm2025,
// helios and openb-pods. Subclasses turn one data row into add() or skip().
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "traces/formats/public/public_trace_source.h"
#include "traces/io/csv_reader.h"

namespace gpumux {

class CsvPublicSource : public PublicTraceSource {
 protected:
  // Reads the header; `required` columns must be there (`note` is appended to that error).
  CsvPublicSource(const std::string& path, const TraceDefaults& defaults, std::uint64_t seed,
                  std::size_t window, const std::string& submit_field,
                  const std::vector<std::string>& required, const std::string& note = "");

  // One data row, width already checked: its cells, valid during the call (slices of the line
  // as read, or the unquoted cells of a line with quotes).
  virtual void row(std::span<const std::string_view> cells) = 0;

  // The row's "file:line", for error messages: built on the first call for a row, so a row that
  // raises no error builds none.
  const std::string& where();
  // A number cell of the row in [min, max]: the plain decimal's fast path, else
  // parse_number_cell (the value of another form, or its InputError naming where() and `field`).
  double number(std::string_view cell, std::string_view field, double min, double max) {
    double value = 0.0;
    if (read_plain_number(cell, min, max, value)) return value;
    return parse_number_cell(cell, where(), field, min, max);
  }

  // Column index by name (-1 when absent); valid after construction.
  int column(std::string_view name) const { return columns_.find(name); }
  // The header row, and its "file:line".
  const std::vector<std::string>& header() const { return header_; }
  const std::string& header_where() const { return header_where_; }
  std::uint32_t file() const { return file_; }
  std::uint64_t line() const { return rows_.line(); }

 private:
  bool read_more() final;

  CsvReader rows_;
  std::vector<std::string> header_;
  std::string header_where_;
  CsvColumns columns_;
  std::uint32_t file_;
  std::vector<std::string_view> cells_;
  std::string where_;             // the row's "file:line" once built, reused
  std::uint64_t where_line_ = 0;  // the line where_ names; 0: none yet
};

}  // namespace gpumux
