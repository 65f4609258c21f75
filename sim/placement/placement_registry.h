// The placement policies by the names scenario files use (scheduler.placement), in one table:
// each entry's name, one line of what it does, what it needs of the sharing model, and how it
// is built. `gpumux models`, the scenario validator's errors, `run` and `compare` read this
// table; it is the only list of placement names.
//
// Two families share the names: the topology policies (placement.h: first-fit, best-fit,
// spread) under any model, and the FGD study's share-aware policies (share_placement.h) under
// models that admit fractional jobs. `best-fit` is both: under a model that limits compute
// shares (fractional) it is the FGD study's best-fit, elsewhere the topology one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/placement/fgd/policy.h"
#include "sim/placement/placement.h"

namespace gpumux {

class ShareView;

enum class PlacementNeeds : std::uint8_t {
  kAnyModel,        // every sharing model
  kFractionalJobs,  // a model that admits fractional jobs (SharingModel::admits_fractional_jobs)
};

struct PlacementInfo {
  std::string_view name;
  std::string_view summary;
  PlacementNeeds needs = PlacementNeeds::kAnyModel;
  bool share_aware = false;               // the FGD study's decision (packing::NodeChooser)
  TopologyFit fit = TopologyFit::kFirst;  // when not share_aware
  packing::Policy share_policy = packing::Policy::kFgd;  // when share_aware
};

// Every entry, in listing order. `best-fit` appears once, as the topology policy; under a
// model limiting compute shares resolve_placement() gives the FGD study's best-fit instead.
const std::vector<PlacementInfo>& placement_policies();

// The entry `name` denotes under a model that does (`model_limits_shares`) or does not limit
// compute shares, or nullptr for an unknown name.
const PlacementInfo* resolve_placement(std::string_view name, bool model_limits_shares);

// "first-fit, best-fit, ...": every name of the table, for messages.
std::string placement_names_text();

// Builds the policy of `info`. A share-aware one needs `view` (it must outlive the policy and
// observe the same engine) and draws its ties from `seed`; a topology one uses neither.
std::unique_ptr<PlacementPolicy> make_placement(const PlacementInfo& info, ShareView* view,
                                                std::uint64_t seed);

// A topology policy by name (benchmarks, tests): the entry `name` denotes without share limits.
// Throws std::invalid_argument for a name that is not a topology policy of the table.
std::unique_ptr<PlacementPolicy> make_placement_policy(std::string_view name);

}  // namespace gpumux
