// Reading one pod-series CSV grouped by pod (derive.h read_pod_series).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"
#include "traces/memory_profiles/derive.h"

namespace gpumux {

namespace {

// Timestamps are Unix-like seconds; anything beyond this is not a timestamp.
constexpr double kMaxTimestamp = 1e12;

struct Row {
  double t = 0.0;
  double value = 0.0;
};

}  // namespace

std::map<std::string, std::vector<PodSample>> read_pod_series(const std::string& path,
                                                              double value_max, std::size_t& rows,
                                                              std::size_t& duplicates,
                                                              std::size_t& comment_lines) {
  CsvReader reader(path);
  std::vector<std::string> fields;
  if (!reader.next(fields)) {
    throw InputError(path + ":1", "",
                     "empty file: expected a header with timestamp_anon, value, container_ip");
  }
  const std::vector<std::string> header = fields;
  const auto column = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) {
      throw InputError(reader.where(), name,
                       "missing column (expected timestamp_anon, value, container_ip)");
    }
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t t_col = column("timestamp_anon");
  const std::size_t v_col = column("value");
  const std::size_t pod_col = column("container_ip");

  std::map<std::string, std::vector<Row>> grouped;
  while (reader.next(fields)) {
    const std::string where = reader.where();
    if (fields.size() != header.size()) {
      throw InputError(where, "",
                       "expected " + std::to_string(header.size()) + " fields, got " +
                           std::to_string(fields.size()));
    }
    const double t = parse_number_cell(fields[t_col], where, "timestamp_anon", 0.0, kMaxTimestamp);
    const double v = parse_number_cell(fields[v_col], where, "value", 0.0, value_max);
    const std::string& pod = fields[pod_col];
    if (pod.find_first_not_of(" \t") == std::string::npos) {
      throw InputError(where, "container_ip", "expected a pod id, got an empty cell");
    }
    grouped[pod].push_back({t, v});
    ++rows;
  }
  comment_lines += reader.skipped_lines();

  std::map<std::string, std::vector<PodSample>> out;
  for (auto& [pod, series] : grouped) {
    // Stable: among rows with the same timestamp the first in file order is kept.
    std::stable_sort(series.begin(), series.end(),
                     [](const Row& a, const Row& b) { return a.t < b.t; });
    std::vector<PodSample>& samples = out[pod];
    samples.reserve(series.size());
    for (const Row& r : series) {
      if (!samples.empty() && samples.back().t_s == r.t) {
        ++duplicates;
        continue;
      }
      samples.push_back({r.t, r.value});
    }
  }
  return out;
}

}  // namespace gpumux
