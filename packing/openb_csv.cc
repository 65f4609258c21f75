#include "packing/openb_csv.h"

#include <charconv>
#include <fstream>
#include <string_view>
#include <unordered_map>

#include "sim/input_error.h"

namespace gpumux::packing {
namespace {

std::vector<std::string_view> split_commas(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      out.push_back(line.substr(start));
      return out;
    }
    out.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Reads a CSV with a header line and hands each non-blank row, split into fields, to `row_fn`
// together with its "file:line" location.
class CsvReader {
 public:
  CsvReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

  // Reads the header and returns the column index of each name in `required`, in that order.
  // Optional columns are looked up later with `column()`.
  void read_header(const std::vector<std::string>& required) {
    std::string line;
    if (!std::getline(in_, line))
      throw InputError(source_ + ":1", "", "empty file, expected a header");
    line_no_ = 1;
    auto fields = split_commas(trim(line));
    for (std::size_t i = 0; i < fields.size(); ++i) {
      std::string name(trim(fields[i]));
      if (!name.empty() && name.front() == '\xEF') name.erase(0, 3);  // UTF-8 BOM
      columns_.emplace(name, static_cast<int>(i));
    }
    width_ = fields.size();
    for (const auto& r : required) {
      if (columns_.find(r) == columns_.end()) {
        throw InputError(source_ + ":1", r, "required column missing from the header");
      }
    }
  }

  int column(const std::string& name) const {
    auto it = columns_.find(name);
    return it == columns_.end() ? -1 : it->second;
  }

  // Returns false at end of input. Blank lines come back with `blank` set.
  bool next(std::vector<std::string_view>& fields, bool& blank) {
    if (!std::getline(in_, current_)) return false;
    ++line_no_;
    std::string_view line = trim(current_);
    blank = line.empty();
    fields.clear();
    if (blank) return true;
    fields = split_commas(line);
    if (fields.size() != width_) {
      throw InputError(where(), "",
                       "expected " + std::to_string(width_) +
                           " comma-separated fields (as in the "
                           "header), found " +
                           std::to_string(fields.size()));
    }
    return true;
  }

  std::string where() const { return source_ + ":" + std::to_string(line_no_); }

  std::int64_t integer(const std::vector<std::string_view>& fields, int col, const char* field,
                       std::int64_t min, std::int64_t max) const {
    std::string_view text = trim(fields[static_cast<std::size_t>(col)]);
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
      throw InputError(where(), field, "expected an integer, found '" + std::string(text) + "'");
    }
    if (value < min || value > max) {
      throw InputError(where(), field,
                       "value " + std::to_string(value) + " out of range [" + std::to_string(min) +
                           ", " + std::to_string(max) + "]");
    }
    return value;
  }

  std::string text(const std::vector<std::string_view>& fields, int col) const {
    return std::string(trim(fields[static_cast<std::size_t>(col)]));
  }

 private:
  std::istream& in_;
  std::string source_;
  std::unordered_map<std::string, int> columns_;
  std::size_t width_ = 0;
  std::size_t line_no_ = 0;
  std::string current_;
};

void count_skip(LoadReport& report, const std::string& reason) {
  for (auto& s : report.skipped) {
    if (s.reason == reason) {
      ++s.rows;
      return;
    }
  }
  report.skipped.push_back({reason, 1});
}

constexpr std::int64_t kMaxInt = std::int64_t{1} << 50;  // generous bound that cannot overflow

std::ifstream open_or_throw(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "", "cannot open file");
  return in;
}

}  // namespace

std::size_t LoadReport::skipped_total() const {
  std::size_t n = 0;
  for (const auto& s : skipped) n += s.rows;
  return n;
}

NodeList load_openb_nodes(std::istream& in, const std::string& source_name) {
  CsvReader csv(in, source_name);
  csv.read_header({"sn", "cpu_milli", "memory_mib", "gpu", "model"});
  const int c_sn = csv.column("sn"), c_cpu = csv.column("cpu_milli"),
            c_mem = csv.column("memory_mib"), c_gpu = csv.column("gpu"),
            c_model = csv.column("model");
  NodeList out;
  std::vector<std::string_view> f;
  bool blank = false;
  while (csv.next(f, blank)) {
    ++out.report.data_rows;
    if (blank) {
      count_skip(out.report, "blank line");
      continue;
    }
    NodeSpec n;
    n.name = csv.text(f, c_sn);
    if (n.name.empty()) throw InputError(csv.where(), "sn", "empty node name");
    n.cpu_milli = csv.integer(f, c_cpu, "cpu_milli", 0, kMaxInt);
    n.memory = MemoryMiB(csv.integer(f, c_mem, "memory_mib", 0, kMaxInt));
    n.num_gpus = static_cast<int>(csv.integer(f, c_gpu, "gpu", 0, kMaxGpusPerNode));
    n.gpu_model = csv.text(f, c_model);
    if (n.num_gpus > 0 && n.gpu_model.empty()) {
      throw InputError(csv.where(), "model", "a node with GPUs needs a GPU model");
    }
    out.nodes.push_back(std::move(n));
    ++out.report.loaded;
  }
  return out;
}

PodList load_openb_pods(std::istream& in, const std::string& source_name) {
  CsvReader csv(in, source_name);
  csv.read_header({"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"});
  const int c_name = csv.column("name"), c_cpu = csv.column("cpu_milli"),
            c_mem = csv.column("memory_mib"), c_num = csv.column("num_gpu"),
            c_milli = csv.column("gpu_milli"), c_spec = csv.column("gpu_spec");
  PodList out;
  std::vector<std::string_view> f;
  bool blank = false;
  while (csv.next(f, blank)) {
    ++out.report.data_rows;
    if (blank) {
      count_skip(out.report, "blank line");
      continue;
    }
    PodSpec p;
    p.name = csv.text(f, c_name);
    if (p.name.empty()) throw InputError(csv.where(), "name", "empty pod name");
    p.cpu_milli = csv.integer(f, c_cpu, "cpu_milli", 0, kMaxInt);
    p.memory = MemoryMiB(csv.integer(f, c_mem, "memory_mib", 0, kMaxInt));
    p.num_gpus = static_cast<int>(csv.integer(f, c_num, "num_gpu", 0, kMaxGpusPerNode));
    p.gpu_milli = static_cast<int>(csv.integer(f, c_milli, "gpu_milli", 0, kGpuMilli));
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
    if (c_spec >= 0 && p.num_gpus > 0) {
      std::string spec = csv.text(f, c_spec);
      std::size_t start = 0;
      while (start <= spec.size()) {
        std::size_t bar = spec.find('|', start);
        if (bar == std::string::npos) bar = spec.size();
        std::string token(trim(std::string_view(spec).substr(start, bar - start)));
        if (!token.empty()) p.gpu_spec.push_back(std::move(token));
        start = bar + 1;
      }
    }
    out.pods.push_back(std::move(p));
    ++out.report.loaded;
  }
  return out;
}

NodeList load_openb_nodes(const std::string& path) {
  auto in = open_or_throw(path);
  return load_openb_nodes(in, path);
}

PodList load_openb_pods(const std::string& path) {
  auto in = open_or_throw(path);
  return load_openb_pods(in, path);
}

}  // namespace gpumux::packing
