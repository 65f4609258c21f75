// The MIG layouts `gpumux plan` searches (docs/planning.md "MIG layouts"). How a MIG model's GPUs
// are split decides which jobs fit at all, so the layout is an assumption the planner searches,
// as it searches the placement policy, not one it inherits: every candidate is searched like a
// model of its own and the model's answer is the smallest cluster over them.
//
// Candidates, for `mig` and the hybrids (`mig+mps`, `mig+timeslice`), under --mig-layouts:
// - `scenario`: the params' own layout only;
// - `generated` (the default): the params' own layout, then per MIG-capable device type, for each
//   profile of its MIG table (media-extension profiles left out, table order) the layout of as
//   many instances of that profile as fit, the room left filled with the largest profiles that
//   still fit (A100-80GB: 7x 1g.10gb, 4x 1g.20gb, 3x 2g.20gb + 1g.20gb, 2x 3g.40gb,
//   4g.40gb + 3g.40gb, 7g.80gb), and last the params' own layout on the first half of each
//   node's GPUs with the other half whole (MIG off: for jobs no instance holds, and for gangs,
//   which never span instances). Duplicates of an earlier candidate are dropped, so at most
//   2 + the profiles of the table, 8 on A100/H100. With several MIG device types, candidate k
//   gives each its own k-th layout (its last when it has fewer).
// - a list `A+B;C+D`: exactly these layouts, each a '+'-joined list of profile names given to
//   every MIG-capable GPU (`whole` for MIG off).
// Params that repartition (`layouts`: the model chooses among its candidates as it runs) are one
// candidate whatever the option: the set is the model's own search. Under strategy `single` the
// half-whole mix is left out (single needs every GPU of a node split the same way).
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/units.h"
#include "sim/core/device.h"

namespace gpumux {

enum class MigLayoutMode { kScenario, kGenerated, kList };

struct MigLayoutRequest {
  MigLayoutMode mode = MigLayoutMode::kGenerated;
  std::vector<std::vector<std::string>> list;  // kList: profile names per layout ([] = whole)
};

// "scenario", "generated" or a list "A+B;C" (see above). Throws InputError naming --mig-layouts
// for an empty or malformed value; profile names are checked against devices when run.
MigLayoutRequest parse_mig_layouts_option(const std::string& text);

// Whether the planner searches layouts for `model`: mig, mig+mps, mig+timeslice.
bool searches_mig_layouts(std::string_view model);

// One node group of the cluster, as far as layouts go.
struct PlanDevice {
  DeviceProfile device;
  int gpus_per_node = 0;
};

struct LayoutCandidate {
  std::string name;       // in words, e.g. "7g.80gb" or "GPUs 0-3: 2x 3g.40gb; GPUs 4-7 whole"
  std::string origin;     // "scenario", "generated" or "--mig-layouts"
  nlohmann::json params;  // the model's sharing.params with this layout
};

// The candidates of `model` whose scenario params are `params` (paths relative to `base_dir`)
// on a cluster of `groups`. A model that searches no layouts gets one candidate: its params,
// named "". Deterministic.
std::vector<LayoutCandidate> mig_layout_candidates(const std::string& model,
                                                   const nlohmann::json& params,
                                                   const std::string& base_dir,
                                                   std::span<const PlanDevice> groups,
                                                   const MigLayoutRequest& request);

// What the GPUs of a cluster of `groups` under `model` with `params` can hold at most.
struct LayoutCapacity {
  std::string name;         // the layout in words ("" for a model without layouts)
  MemoryMiB largest;        // memory of the largest instance or whole GPU
  bool whole_gpus = false;  // some GPU runs with MIG off (or the model has no MIG)
  // Per MIG-capable device type: each GPU index's profiles in placement order, null when whole.
  nlohmann::json by_device = nlohmann::json::object();
};
LayoutCapacity layout_capacity(const std::string& model, const nlohmann::json& params,
                               const std::string& base_dir, std::span<const PlanDevice> groups);

}  // namespace gpumux
