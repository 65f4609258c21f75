#include "traces/formats/openb_pod_list.h"

#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"

namespace gpumux {

OpenbPodRow::OpenbPodRow(const std::vector<std::string>& header, const std::string& where,
                         OpenbPodParts parts, std::string_view note_when_missing)
    : parts_(parts), width_(header.size()) {
  std::vector<const char*> needed = {"name"};
  if (parts.cpu_milli_required) needed.push_back("cpu_milli");
  if (parts.memory_mib) needed.push_back("memory_mib");
  needed.insert(needed.end(), {"num_gpu", "gpu_milli"});
  if (parts.times) {
    needed.insert(needed.end(), {"creation_time", "deletion_time", "scheduled_time"});
  }
  const auto required = [&](const char* name) {
    const std::size_t i = find_openb_column(header, name);
    if (i == header.size()) {
      std::string all;
      for (const char* n : needed) all += (all.empty() ? "" : ", ") + std::string(n);
      throw InputError(where, name,
                       "required column is missing from the header (needed: " + all + ")" +
                           std::string(note_when_missing));
    }
    return i;
  };
  const auto optional = [&](const char* name) {
    const std::size_t i = find_openb_column(header, name);
    return i == header.size() ? kAbsent : i;
  };
  name_ = required("name");
  cpu_milli_ = parts.cpu_milli_required ? required("cpu_milli") : optional("cpu_milli");
  if (parts.memory_mib) memory_mib_ = required("memory_mib");
  num_gpu_ = required("num_gpu");
  gpu_milli_ = required("gpu_milli");
  if (parts.gpu_spec) gpu_spec_ = optional("gpu_spec");
  if (parts.times) {
    creation_ = required("creation_time");
    deletion_ = required("deletion_time");
    scheduled_ = required("scheduled_time");
  }
}

namespace {

// A time cell that may be empty (the event did not happen).
std::optional<double> optional_seconds(std::string_view cell, const std::string& where,
                                       std::string_view field) {
  if (cell.empty()) return std::nullopt;
  return parse_number_cell(cell, where, field, 0.0, kMaxOpenbSeconds);
}

}  // namespace

void OpenbPodRow::parse(const std::vector<std::string>& cells, const std::string& where,
                        OpenbPod& pod) const {
  parse_cells(cells, where, pod);
}

void OpenbPodRow::parse(std::span<const std::string_view> cells, const std::string& where,
                        OpenbPod& pod) const {
  parse_cells(cells, where, pod);
}

template <class Cells>
void OpenbPodRow::parse_cells(const Cells& cells, const std::string& where, OpenbPod& pod) const {
  check_openb_row_width(cells.size(), width_, where);
  pod.name.assign(trim_blanks(cells[name_]));
  if (pod.name.empty()) throw InputError(where, "name", "empty pod name");
  pod.cpu_milli.reset();
  if (cpu_milli_ != kAbsent && (parts_.cpu_milli_required || !cells[cpu_milli_].empty())) {
    pod.cpu_milli = parse_int_cell(cells[cpu_milli_], where, "cpu_milli", 0, kMaxOpenbPodCpuMilli);
  }
  pod.memory_mib = memory_mib_ == kAbsent ? 0
                                          : parse_int_cell(cells[memory_mib_], where, "memory_mib",
                                                           0, kMaxOpenbAmount);
  pod.num_gpu =
      static_cast<int>(parse_int_cell(cells[num_gpu_], where, "num_gpu", 0, kMaxOpenbNodeGpus));
  pod.gpu_milli = static_cast<int>(parse_int_cell(cells[gpu_milli_], where, "gpu_milli", 0, 1000));
  pod.gpu_spec.clear();
  if (gpu_spec_ != kAbsent) {
    const std::string_view spec = cells[gpu_spec_];
    std::size_t start = 0;
    while (start <= spec.size()) {
      std::size_t bar = spec.find('|', start);
      if (bar == std::string_view::npos) bar = spec.size();
      const std::string_view token = trim_blanks(spec.substr(start, bar - start));
      if (!token.empty()) pod.gpu_spec.emplace_back(token);
      start = bar + 1;
    }
  }
  if (parts_.times) {
    pod.creation_s =
        parse_number_cell(cells[creation_], where, "creation_time", 0.0, kMaxOpenbSeconds);
    pod.scheduled_s = optional_seconds(cells[scheduled_], where, "scheduled_time");
    pod.deletion_s = optional_seconds(cells[deletion_], where, "deletion_time");
  } else {
    pod.creation_s = 0;
    pod.scheduled_s.reset();
    pod.deletion_s.reset();
  }
}

}  // namespace gpumux
