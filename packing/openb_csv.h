// Loaders for the Alibaba GPU cluster trace v2023 ("openb") node and pod lists.
//
// Field mapping (header names are matched, so column order does not matter; extra columns are
// ignored):
//
//   node list  `sn, cpu_milli, memory_mib, gpu, model`: read by the openb node-list reader that
//              `gpumux run` uses too (traces/formats/openb_node_list.h), into
//     sn -> NodeSpec::name, cpu_milli -> NodeSpec::cpu_milli, memory_mib -> NodeSpec::memory,
//     gpu -> NodeSpec::num_gpus (here at most kMaxGpusPerNode; each GPU has 1000 milli),
//     model -> NodeSpec::gpu_model (may be empty on CPU-only nodes)
//
//   pod list   `name, cpu_milli, memory_mib, num_gpu, gpu_milli
//               [, gpu_spec, qos, pod_phase, creation_time, deletion_time, scheduled_time]`:
//              each row parsed by the openb pod-row parser that `gpumux run`'s `openb-pods`
//              loader uses too (traces/formats/openb_pod_list.h: bounds and errors), into
//     name        -> PodSpec::name (non-empty)
//     cpu_milli   -> PodSpec::cpu_milli (required here)
//     memory_mib  -> PodSpec::memory, MiB (required here)
//     num_gpu     -> PodSpec::num_gpus (here at most kMaxGpusPerNode)
//     gpu_milli   -> PodSpec::gpu_milli, 0..1000: the share of EACH requested GPU; a pod
//                    with num_gpu == 1 and gpu_milli < 1000 shares one GPU with others
//     gpu_spec    -> PodSpec::gpu_spec, optional: GPU models the pod accepts ('|'-separated;
//                    empty = any model). Kept only for GPU pods (num_gpu > 0), as the FGD
//                    study's converter does.
//     qos, pod_phase, creation_time, deletion_time, scheduled_time: read-only context; the FGD
//                    study treats the list as a snapshot and ignores them, so they are not
//                    read (beyond the column count). `multigpu*` lists lack these columns.
//
// Both lists are read with the one CSV reader (traces/io/csv_reader.h) and its dialect.
// Malformed rows (wrong column count, a number that does not parse or is out of range, an empty
// name) throw gpumux::InputError naming "file:line" and the field. Rows that are well formed but
// cannot be represented are skipped and counted in LoadReport::skipped with their reason:
//   - blank line (or a '#' comment line, which the reader skips alike)
//   - GPU pod with gpu_milli == 0          ("num_gpu > 0 with gpu_milli 0")
//   - CPU pod with gpu_milli > 0           ("gpu_milli > 0 with num_gpu 0")
//   - a fractional share of several GPUs   ("num_gpu > 1 with gpu_milli < 1000")
// None of these occur in the published lists; the loader never drops a row silently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/placement/fgd/pod_types.h"
#include "sim/base/units.h"

namespace gpumux::packing {

struct SkipCount {
  std::string reason;
  std::size_t rows = 0;
};

struct LoadReport {
  std::size_t data_rows = 0;  // lines after the header, blank lines included
  std::size_t loaded = 0;
  std::vector<SkipCount> skipped;  // in order of first occurrence
  std::size_t skipped_total() const;
};

struct NodeList {
  std::vector<NodeSpec> nodes;
  LoadReport report;
};

struct PodList {
  std::vector<PodSpec> pods;
  LoadReport report;
};

// Read a list from a file. Throws InputError when the file cannot be opened, the header lacks a
// required column, or a row is malformed (see the mapping above).
NodeList load_openb_nodes(const std::string& path);
PodList load_openb_pods(const std::string& path);

}  // namespace gpumux::packing
