// A row of the pod lists of the Alibaba GPU cluster trace v2023 ("openb"), parsed once for every
// command: the `openb-pods` trace loader of `gpumux run` (traces/formats/public/openb_pods.cc) and
// `gpumux pack` (packing/openb_csv.h) both turn a row's cells into an OpenbPod here, then each
// applies its own policy to pods it cannot use (pack skips them under counted reasons; the
// loader makes CPU-only jobs and skips pods never scheduled).
//
//   name, cpu_milli, memory_mib, num_gpu, gpu_milli
//   [, gpu_spec, qos, pod_phase, creation_time, deletion_time, scheduled_time]
//     name            pod name, non-empty (spaces around it dropped)
//     cpu_milli       integer 0..kMaxOpenbPodCpuMilli, in 1/1000 CPU cores
//     memory_mib      integer 0..kMaxOpenbAmount, MiB of host memory
//     num_gpu         integer 0..kMaxOpenbNodeGpus: a pod runs on one node
//     gpu_milli       integer 0..1000: the share of EACH requested GPU
//     gpu_spec        GPU models the pod accepts, separated by '|' (e.g. "V100M16|V100M32");
//                     empty tokens are ignored; empty = any model
//     creation_time   seconds 0..kMaxOpenbSeconds
//     deletion_time   seconds 0..kMaxOpenbSeconds, or empty: not deleted
//     scheduled_time  seconds 0..kMaxOpenbSeconds, or empty: never scheduled (a Pending pod)
//     qos, pod_phase  never read
//
// Each reader names the parts it uses (OpenbPodParts); the columns and cells of the others are
// never looked at, so a list is not rejected for a cell its reader ignores (pack does not read
// the times, the run loader not memory_mib or gpu_spec). The `multigpu*` lists carry only the
// first five columns.
//
// Header names are matched (find_openb_column: spaces around a name and a UTF-8 byte-order mark
// are ignored), so column order does not matter; extra columns are ignored. A header without a
// required column, or a malformed row (wrong column count, a number that does not parse or is
// out of range, an empty name), throws InputError naming "file:line" and the field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "traces/formats/openb_node_list.h"

namespace gpumux {

// 10^6 cores: far above any openb node (at most 128 cores); cpu_milli / 1000 stays within a
// job's `cpus` range.
inline constexpr std::int64_t kMaxOpenbPodCpuMilli = 1'000'000'000;
inline constexpr double kMaxOpenbSeconds = 1e12;

// The parts of a row a reader parses; name, num_gpu and gpu_milli are always required.
struct OpenbPodParts {
  // cpu_milli: required (column and value) when true; else read when the column is there, an
  // empty cell meaning "not given".
  bool cpu_milli_required = false;
  bool memory_mib = false;  // required column
  bool gpu_spec = false;    // optional column
  bool times = false;       // creation_time, deletion_time, scheduled_time: required columns
};

struct OpenbPod {
  std::string name;
  std::optional<std::int64_t> cpu_milli;  // none: no such column or an empty cell (optional)
  std::int64_t memory_mib = 0;            // with OpenbPodParts::memory_mib
  int num_gpu = 0;
  int gpu_milli = 0;
  std::vector<std::string> gpu_spec;  // with OpenbPodParts::gpu_spec; empty: any model
  double creation_s = 0;              // with OpenbPodParts::times
  std::optional<double> scheduled_s;  // none: never scheduled
  std::optional<double> deletion_s;   // none: not deleted
};

class OpenbPodRow {
 public:
  // Finds the columns of `parts` in `header`, the header line read at `where` ("file:line").
  // Throws InputError at `where` naming the first required column missing;
  // `note_when_missing` is appended to that message.
  OpenbPodRow(const std::vector<std::string>& header, const std::string& where, OpenbPodParts parts,
              std::string_view note_when_missing = "");

  // Parses one data row read at `where` into `pod` (its strings' capacity reused). Throws
  // InputError (see above).
  void parse(const std::vector<std::string>& cells, const std::string& where, OpenbPod& pod) const;
  // The same over cells as views (CsvReader's in-place cells).
  void parse(std::span<const std::string_view> cells, const std::string& where,
             OpenbPod& pod) const;

 private:
  template <class Cells>
  void parse_cells(const Cells& cells, const std::string& where, OpenbPod& pod) const;

  static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);

  OpenbPodParts parts_;
  std::size_t width_;  // cells per row, as in the header
  std::size_t name_, cpu_milli_, num_gpu_, gpu_milli_;
  std::size_t memory_mib_ = kAbsent, gpu_spec_ = kAbsent;
  std::size_t creation_ = kAbsent, deletion_ = kAbsent, scheduled_ = kAbsent;
};

}  // namespace gpumux
