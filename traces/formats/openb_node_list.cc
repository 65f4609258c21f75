#include "traces/formats/openb_node_list.h"

#include <algorithm>
#include <string_view>

#include "sim/base/input_error.h"

namespace gpumux {

namespace {

// A header cell as a column name: spaces around it and a UTF-8 byte-order mark dropped.
std::string_view column_name(std::string_view cell) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (cell.substr(0, kBom.size()) == kBom) cell.remove_prefix(kBom.size());
  return trim_blanks(cell);
}

}  // namespace

std::size_t find_openb_column(const std::vector<std::string>& header, std::string_view name) {
  const auto it = std::find_if(header.begin(), header.end(),
                               [&](const std::string& cell) { return column_name(cell) == name; });
  return static_cast<std::size_t>(it - header.begin());
}

void check_openb_row_width(std::size_t found, std::size_t width, const std::string& where) {
  if (found != width) {
    throw InputError(where, "",
                     "expected " + std::to_string(width) + " comma-separated fields (as in the "
                     "header), found " + std::to_string(found));
  }
}

bool is_openb_node_header(const std::vector<std::string>& header) {
  for (const char* c : {"sn", "gpu", "model"}) {
    if (find_openb_column(header, c) == header.size()) return false;
  }
  return true;
}

OpenbNodeReader::OpenbNodeReader(CsvReader& reader, const std::vector<std::string>& header)
    : reader_(reader), width_(header.size()) {
  const auto required = [&](const char* name) {
    const std::size_t i = find_openb_column(header, name);
    if (i == header.size()) {
      throw InputError(reader_.where(), name,
                       "required column missing from the header (an openb node list has "
                       "sn,cpu_milli,memory_mib,gpu,model)");
    }
    return i;
  };
  sn_ = required("sn");
  cpu_milli_ = required("cpu_milli");
  memory_mib_ = required("memory_mib");
  gpu_ = required("gpu");
  model_ = required("model");
}

bool OpenbNodeReader::next(OpenbNode& node) {
  if (!reader_.next(row_)) return false;
  const std::string where = reader_.where();
  check_openb_row_width(row_.size(), width_, where);
  node.name = trim_blanks(row_[sn_]);
  if (node.name.empty()) throw InputError(where, "sn", "empty node name");
  node.cpu_milli = parse_int_cell(row_[cpu_milli_], where, "cpu_milli", 0, kMaxOpenbAmount);
  node.memory_mib = parse_int_cell(row_[memory_mib_], where, "memory_mib", 0, kMaxOpenbAmount);
  node.gpus = static_cast<int>(parse_int_cell(row_[gpu_], where, "gpu", 0, kMaxOpenbNodeGpus));
  node.model = trim_blanks(row_[model_]);
  if (node.gpus > 0 && node.model.empty()) {
    throw InputError(where, "model", "a node with GPUs needs a GPU model");
  }
  return true;
}

}  // namespace gpumux
