#include "packing/openb_csv.h"

#include <string_view>

#include "sim/input_error.h"
#include "traces/csv_reader.h"
#include "traces/openb_node_list.h"

namespace gpumux::packing {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

void count_skip(LoadReport& report, const std::string& reason, std::size_t rows = 1) {
  for (auto& s : report.skipped) {
    if (s.reason == reason) {
      s.rows += rows;
      return;
    }
  }
  report.skipped.push_back({reason, rows});
}

constexpr std::int64_t kMaxInt = std::int64_t{1} << 50;  // generous bound that cannot overflow

// Reads the header line (an empty file has none).
std::vector<std::string> read_header(CsvReader& reader) {
  std::vector<std::string> header;
  if (!reader.next(header)) {
    throw InputError(reader.path() + ":1", "", "empty file, expected a header");
  }
  return header;
}

// Counts, as "blank line" skips, the lines the reader skipped since the last call: the report
// then lists its reasons in the order the rows came.
class BlankLines {
 public:
  explicit BlankLines(const CsvReader& reader) : reader_(reader), seen_(reader.skipped_lines()) {}
  void count(LoadReport& report) {
    const auto skipped = static_cast<std::size_t>(reader_.skipped_lines() - seen_);
    seen_ = reader_.skipped_lines();
    if (skipped == 0) return;
    report.data_rows += skipped;
    count_skip(report, "blank line", skipped);
  }

 private:
  const CsvReader& reader_;
  std::uint64_t seen_;
};

}  // namespace

std::size_t LoadReport::skipped_total() const {
  std::size_t n = 0;
  for (const auto& s : skipped) n += s.rows;
  return n;
}

NodeList load_openb_nodes(const std::string& path) {
  CsvReader csv(path);
  OpenbNodeReader nodes(csv, read_header(csv));
  BlankLines blank(csv);
  NodeList out;
  OpenbNode row;
  while (nodes.next(row)) {
    blank.count(out.report);
    ++out.report.data_rows;
    if (row.gpus > kMaxGpusPerNode) {
      throw InputError(csv.where(), "gpu",
                       "value " + std::to_string(row.gpus) + " out of range [0, " +
                           std::to_string(kMaxGpusPerNode) + "] (pack's nodes hold at most " +
                           std::to_string(kMaxGpusPerNode) + " GPUs)");
    }
    NodeSpec n;
    n.name = std::move(row.name);
    n.cpu_milli = row.cpu_milli;
    n.memory = MemoryMiB(row.memory_mib);
    n.num_gpus = row.gpus;
    n.gpu_model = std::move(row.model);
    out.nodes.push_back(std::move(n));
    ++out.report.loaded;
  }
  blank.count(out.report);
  return out;
}

PodList load_openb_pods(const std::string& path) {
  CsvReader csv(path);
  const std::vector<std::string> header = read_header(csv);
  const auto column = [&](const char* name, bool required) {
    const std::size_t i = find_openb_column(header, name);
    if (required && i == header.size()) {
      throw InputError(csv.where(), name, "required column missing from the header");
    }
    return i;
  };
  const std::size_t c_name = column("name", true), c_cpu = column("cpu_milli", true),
                    c_mem = column("memory_mib", true), c_num = column("num_gpu", true),
                    c_milli = column("gpu_milli", true), c_spec = column("gpu_spec", false);
  BlankLines blank(csv);
  PodList out;
  std::vector<std::string> f;
  while (csv.next(f)) {
    blank.count(out.report);
    ++out.report.data_rows;
    const std::string where = csv.where();
    if (f.size() != header.size()) {
      throw InputError(where, "",
                       "expected " + std::to_string(header.size()) +
                           " comma-separated fields (as in the header), found " +
                           std::to_string(f.size()));
    }
    PodSpec p;
    p.name = trim(f[c_name]);
    if (p.name.empty()) throw InputError(where, "name", "empty pod name");
    p.cpu_milli = parse_int_cell(f[c_cpu], where, "cpu_milli", 0, kMaxInt);
    p.memory = MemoryMiB(parse_int_cell(f[c_mem], where, "memory_mib", 0, kMaxInt));
    p.num_gpus = static_cast<int>(parse_int_cell(f[c_num], where, "num_gpu", 0, kMaxGpusPerNode));
    p.gpu_milli = static_cast<int>(parse_int_cell(f[c_milli], where, "gpu_milli", 0, kGpuMilli));
    if (p.num_gpus > 0 && p.gpu_milli == 0) {
      count_skip(out.report, "num_gpu > 0 with gpu_milli 0");
      continue;
    }
    if (p.num_gpus == 0 && p.gpu_milli > 0) {
      count_skip(out.report, "gpu_milli > 0 with num_gpu 0");
      continue;
    }
    if (p.num_gpus > 1 && p.gpu_milli < kGpuMilli) {
      count_skip(out.report, "num_gpu > 1 with gpu_milli < 1000");
      continue;
    }
    if (c_spec < header.size() && p.num_gpus > 0) {
      const std::string_view spec = f[c_spec];
      std::size_t start = 0;
      while (start <= spec.size()) {
        std::size_t bar = spec.find('|', start);
        if (bar == std::string_view::npos) bar = spec.size();
        std::string token(trim(spec.substr(start, bar - start)));
        if (!token.empty()) p.gpu_spec.push_back(std::move(token));
        start = bar + 1;
      }
    }
    out.pods.push_back(std::move(p));
    ++out.report.loaded;
  }
  blank.count(out.report);
  return out;
}

}  // namespace gpumux::packing
