#include "calibrate/overlap/overlap_data.h"

#include <algorithm>
#include <map>
#include <set>

#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"

namespace gpumux::calibration {

namespace {

constexpr const char* kColumns[] = {"mode",   "set",        "member",
                                    "device", "sm_share",   "kernel_us",
                                    "duty",   "alone_duty", "active_thread_pct",
                                    "speed"};

}  // namespace

OverlapData read_overlap_csv(const std::string& path) {
  CsvReader csv(path);
  std::vector<std::string> fields;
  if (!csv.next(fields)) throw InputError(path, "", "empty file: expected a header line");
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < fields.size(); ++i) column[fields[i]] = i;
  for (const char* name : kColumns) {
    if (!column.count(name)) {
      throw InputError(csv.where(), name,
                       "missing column (header must name mode, set, member, "
                       "device, sm_share, kernel_us, duty, alone_duty, "
                       "active_thread_pct, speed)");
    }
  }
  OverlapData data;
  data.file = path;
  std::map<std::string, std::size_t> set_index;
  std::set<std::pair<std::string, int>> members;
  while (csv.next(fields)) {
    const std::string where = csv.where();
    if (fields.size() != column.size()) {
      throw InputError(where, "",
                       "expected " + std::to_string(column.size()) + " fields, got " +
                           std::to_string(fields.size()));
    }
    auto cell = [&](const char* name) -> const std::string& { return fields[column[name]]; };
    OverlapRow r;
    r.line = static_cast<int>(csv.line());
    r.mode = cell("mode");
    if (r.mode != "timeslice" && r.mode != "mps") {
      throw InputError(where, "mode", "expected 'timeslice' or 'mps', got '" + r.mode + "'");
    }
    r.set = cell("set");
    if (r.set.empty()) throw InputError(where, "set", "empty set name");
    r.member = static_cast<int>(parse_int_cell(cell("member"), where, "member", 0, 1000));
    r.device = cell("device");
    if (r.device.empty()) throw InputError(where, "device", "empty device name");
    r.sm_share = parse_number_cell(cell("sm_share"), where, "sm_share", 1e-6, 1.0);
    r.kernel_us = parse_number_cell(cell("kernel_us"), where, "kernel_us", 1.0, 1e9);
    r.duty = parse_number_cell(cell("duty"), where, "duty", 1e-6, 1.0);
    r.alone_duty = parse_number_cell(cell("alone_duty"), where, "alone_duty", 1e-6, 1.0);
    r.active_thread_pct =
        parse_number_cell(cell("active_thread_pct"), where, "active_thread_pct", 1.0, 100.0);
    r.speed = parse_number_cell(cell("speed"), where, "speed", 1e-6, 2.0);
    if (!members.insert({r.set, r.member}).second) {
      throw InputError(where, "member",
                       "member " + std::to_string(r.member) + " of set '" + r.set + "' repeated");
    }
    const auto [it, added] = set_index.try_emplace(r.set, data.sets.size());
    if (added) {
      data.sets.push_back(OverlapSet{r.set, r.mode, {}});
    } else {
      const OverlapRow& first = data.rows[static_cast<std::size_t>(data.sets[it->second].rows[0])];
      if (first.mode != r.mode) {
        throw InputError(where, "mode",
                         "set '" + r.set + "' mixes modes (line " + std::to_string(first.line) +
                             " has " + first.mode + ")");
      }
      if (first.device != r.device) {
        throw InputError(where, "device", "set '" + r.set + "' mixes devices");
      }
      if (first.active_thread_pct != r.active_thread_pct) {
        throw InputError(where, "active_thread_pct",
                         "set '" + r.set + "' mixes active-thread caps (one daemon setting)");
      }
    }
    data.sets[it->second].rows.push_back(static_cast<int>(data.rows.size()));
    data.rows.push_back(std::move(r));
  }
  if (data.rows.empty()) throw InputError(path, "", "no measurement rows");
  return data;
}

std::vector<std::string> overlap_modes(const OverlapData& data) {
  std::vector<std::string> modes;
  for (const char* m : {"timeslice", "mps"}) {
    if (std::any_of(data.rows.begin(), data.rows.end(),
                    [&](const OverlapRow& r) { return r.mode == m; })) {
      modes.emplace_back(m);
    }
  }
  return modes;
}

}  // namespace gpumux::calibration
