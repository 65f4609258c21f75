#include "calibrate/overlap/mig_speed_data.h"

#include <algorithm>
#include <map>
#include <utility>

#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"

namespace gpumux::calibration {

namespace {

// Column index by name; InputError naming the header line when one of `needed` is missing.
std::map<std::string, std::size_t> header(CsvReader& csv, const std::vector<std::string>& fields,
                                          const std::vector<const char*>& needed,
                                          const std::string& all) {
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < fields.size(); ++i) column[fields[i]] = i;
  for (const char* name : needed) {
    if (!column.count(name)) {
      throw InputError(csv.where(), name, "missing column (header must name " + all + ")");
    }
  }
  return column;
}

std::vector<std::string> first_line(CsvReader& csv) {
  std::vector<std::string> fields;
  if (!csv.next(fields)) throw InputError(csv.path(), "", "empty file: expected a header line");
  return fields;
}

// A row must have one field per header column.
void check_field_count(const std::vector<std::string>& fields, std::size_t columns,
                       const std::string& where) {
  if (fields.size() != columns) {
    throw InputError(
        where, "",
        "expected " + std::to_string(columns) + " fields, got " + std::to_string(fields.size()));
  }
}

}  // namespace

MigSpeedData read_mig_speeds(const std::string& speeds_csv, const std::string& workloads_csv) {
  MigSpeedData data;
  data.speeds_file = speeds_csv;
  data.workloads_file = workloads_csv;
  std::map<std::pair<std::string, int>, int> index;
  {
    CsvReader csv(workloads_csv);
    std::vector<std::string> fields = first_line(csv);
    const auto column = header(csv, fields, {"workload", "batch", "sm_util_pct", "mem_bw_util_pct"},
                               "workload, batch, sm_util_pct, mem_bw_util_pct");
    while (csv.next(fields)) {
      const std::string where = csv.where();
      check_field_count(fields, column.size(), where);
      auto cell = [&](const char* name) -> const std::string& { return fields[column.at(name)]; };
      MigWorkload w;
      w.line = static_cast<int>(csv.line());
      w.workload = cell("workload");
      if (w.workload.empty()) throw InputError(where, "workload", "empty workload name");
      w.batch = static_cast<int>(parse_int_cell(cell("batch"), where, "batch", 1, 1 << 30));
      w.sm_util = parse_number_cell(cell("sm_util_pct"), where, "sm_util_pct", 1e-4, 100.0) / 100.0;
      w.mem_bw_util =
          parse_number_cell(cell("mem_bw_util_pct"), where, "mem_bw_util_pct", 0.0, 100.0) / 100.0;
      const auto [it, added] =
          index.try_emplace({w.workload, w.batch}, static_cast<int>(data.workloads.size()));
      if (!added) {
        throw InputError(
            where, "workload",
            "'" + w.workload + "' batch " + std::to_string(w.batch) +
                " given twice (first at line " +
                std::to_string(data.workloads[static_cast<std::size_t>(it->second)].line) + ")");
      }
      data.workloads.push_back(std::move(w));
    }
    if (data.workloads.empty()) throw InputError(workloads_csv, "", "no workload rows");
  }
  CsvReader csv(speeds_csv);
  std::vector<std::string> fields = first_line(csv);
  const auto column = header(csv, fields, {"workload", "batch", "profile", "speed_vs_7g"},
                             "workload, batch, profile, speed_vs_7g");
  while (csv.next(fields)) {
    const std::string where = csv.where();
    check_field_count(fields, column.size(), where);
    auto cell = [&](const char* name) -> const std::string& { return fields[column.at(name)]; };
    MigSpeedRow r;
    r.line = static_cast<int>(csv.line());
    r.workload = cell("workload");
    if (r.workload.empty()) throw InputError(where, "workload", "empty workload name");
    r.batch = static_cast<int>(parse_int_cell(cell("batch"), where, "batch", 1, 1 << 30));
    r.profile = cell("profile");
    if (r.profile.empty()) throw InputError(where, "profile", "empty MIG profile name");
    r.speed = parse_number_cell(cell("speed_vs_7g"), where, "speed_vs_7g", 1e-6, 2.0);
    const auto it = index.find({r.workload, r.batch});
    if (it == index.end()) {
      throw InputError(
          where, "workload",
          "'" + r.workload + "' batch " + std::to_string(r.batch) + " is not in " + workloads_csv);
    }
    r.workload_index = it->second;
    data.rows.push_back(std::move(r));
  }
  if (data.rows.empty()) throw InputError(speeds_csv, "", "no speed rows");
  return data;
}

std::vector<std::string> mig_speed_families(const MigSpeedData& data) {
  std::vector<std::string> out;
  for (const MigSpeedRow& r : data.rows) {
    if (std::find(out.begin(), out.end(), r.workload) == out.end()) out.push_back(r.workload);
  }
  return out;
}

}  // namespace gpumux::calibration
