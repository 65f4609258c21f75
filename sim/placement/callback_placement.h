// A placement policy decided by a function outside the engine: the Python package's policies
// (python/, docs/python.md), registered by name in the placement table (registry.h,
// register_placement_policy) beside the C++ ones.
//
// For each job the engine asks about, the policy lists the GPUs that admit it now, under the
// same checks as the topology policies (topology_placement.h: the GPU's room, then the sharing
// model), and hands the list to the function, which picks job.gpus of them or none. The pick is
// checked: a GPU not in the list, one named twice, or the wrong count is an InputError naming
// the policy. On a cluster whose nodes declare CPUs the function is told the job's cores, and
// the list is not capped by them: a pick whose nodes lack the cores is refused the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/placement/placement.h"

namespace gpumux {

// One GPU that admits the job now.
struct PlacementCandidate {
  GpuIndex gpu = 0;  // cluster-wide index, the one jobs.csv prints
  NodeIndex node = 0;
  int rack = 0;
  int index_in_node = 0;
  int residents = 0;                 // jobs on the GPU now
  std::int64_t memory_used_mib = 0;  // what its residents hold now
  std::int64_t memory_mib = 0;       // the device's memory usable by jobs
};

// Picks `job.gpus` of `candidates` (sorted by GPU index) into `out` (empty on entry) and
// returns true, or returns false to leave the job queued. May throw; the run then fails with
// that exception.
using PlacementChooser =
    std::function<bool(const JobSpec& job, std::span<const PlacementCandidate> candidates,
                       std::vector<GpuIndex>& out)>;

// `name` is the policy's table name, used in error messages.
std::unique_ptr<PlacementPolicy> make_callback_placement(std::string name, PlacementChooser choose);

}  // namespace gpumux
