// A PublicTraceSource over a CSV file with a header row: the loaders of pai-sim, dlrm2025,
// helios and openb-pods. Subclasses turn one data row into add() or skip().
#pragma once

#include <string>
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

  // One data row, width already checked; `where` is "file:line".
  virtual void row(const std::vector<std::string>& cells, const std::string& where) = 0;

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
  std::vector<std::string> cells_;
  std::string where_;  // the row's "file:line", reused
};

}  // namespace gpumux
