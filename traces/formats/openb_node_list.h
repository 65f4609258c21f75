// The node list of the Alibaba GPU cluster trace v2023 ("openb"), read once for every command:
// `gpumux run` (cluster.nodes_csv, scenarios/scenario.cc) and `gpumux pack`
// (packing/openb_csv.h) both take their nodes from OpenbNodeReader.
//
//   sn, cpu_milli, memory_mib, gpu, model
//     sn          node name, non-empty (spaces around it dropped)
//     cpu_milli   integer 0..kMaxOpenbAmount, in 1/1000 CPU cores
//     memory_mib  integer 0..kMaxOpenbAmount, MiB
//     gpu         integer 0..kMaxOpenbNodeGpus
//     model       GPU model (e.g. "T4", "V100M32"); non-empty when gpu > 0, may be empty on
//                 CPU-only nodes
//
// Header names are matched, so column order does not matter; extra columns are ignored. Rows
// come from the one CSV reader (traces/io/csv_reader.h): its dialect, blank and '#' lines skipped
// and counted there. A malformed row (wrong column count, a number that does not parse or is out
// of range, an empty name, a GPU node without a model) throws InputError naming "file:line" and
// the field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "traces/io/csv_reader.h"

namespace gpumux {

// The most GPUs an openb node may list (a node of a simulated cluster holds at most as many).
inline constexpr int kMaxOpenbNodeGpus = 64;
// Bound of the amounts (cpu_milli and memory_mib of a node, memory_mib of a pod): generous, and
// sums over a list cannot overflow.
inline constexpr std::int64_t kMaxOpenbAmount = std::int64_t{1} << 50;

struct OpenbNode {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  int gpus = 0;
  std::string model;  // empty on CPU-only nodes
};

// Index of column `name` in the header of an openb list (node or pod list), or header.size()
// when absent. Spaces around a header cell and a UTF-8 byte-order mark are ignored.
std::size_t find_openb_column(const std::vector<std::string>& header, std::string_view name);

// Throws InputError at `where` unless a row of `found` cells has the header's `width`.
void check_openb_row_width(std::size_t found, std::size_t width, const std::string& where);

// True when `header` has the columns sn, gpu and model: what tells an openb node list from
// gpumux's own nodes CSV (name,gpus,device).
bool is_openb_node_header(const std::vector<std::string>& header);

class OpenbNodeReader {
 public:
  // `reader` has just read the `header` line. Throws InputError at the header, naming the
  // first required column it lacks. `reader` must outlive this reader.
  OpenbNodeReader(CsvReader& reader, const std::vector<std::string>& header);

  // Reads the next node; false at the end of the file. Throws InputError (see above).
  bool next(OpenbNode& node);

 private:
  CsvReader& reader_;
  std::size_t width_;  // fields per row, as in the header
  std::size_t sn_, cpu_milli_, memory_mib_, gpu_, model_;
  std::vector<std::string> row_;
};

}  // namespace gpumux
