// The placement policies by the names scenario files use (scheduler.placement), in one table
// (registry.cc; a Registry, sim/base/registry.h): each entry's name, one line of what it does,
// what it needs of the sharing model, the parameters it reads from `scheduler.params` and its
// factory. `gpumux models`, the scenario parser (which resolves the entry once), `run` and
// `compare` read this table; it is the only list of placement names.
//
// Two families share the names: the topology policies (placement.h: first-fit, best-fit,
// spread) under any model, and the FGD study's share-aware policies (share_placement.h), one
// row per scorer, under models that admit fractional jobs. `best-fit` is both: under a model
// that limits compute shares (fractional) it is the FGD study's best-fit, elsewhere the
// topology one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "sim/base/json_fields.h"
#include "sim/base/parameter.h"
#include "sim/base/registry.h"
#include "sim/placement/fgd/policy.h"
#include "sim/placement/placement.h"

namespace gpumux {

class ShareView;

enum class PlacementNeeds : std::uint8_t {
  kAnyModel,        // every sharing model
  kFractionalJobs,  // a model that admits fractional jobs (SharingModel::admits_fractional_jobs)
};

// What a placement policy is built from, beside its parameters.
struct PlacementContext {
  // The cluster mirrored in GPU shares (share-aware entries; it must outlive the policy and
  // observe the same engine); null for the others.
  ShareView* share_view = nullptr;
  std::uint64_t seed = 0;  // ties drawn by share-aware entries
};

struct PlacementInfo {
  std::string_view name;
  std::string_view summary;
  PlacementNeeds needs = PlacementNeeds::kAnyModel;
  bool share_aware = false;  // decides on the ShareView (the FGD study's packing::NodeChooser)
  packing::Policy scorer = packing::Policy::kFgd;  // a share-aware row's node scorer
  // Builds the policy of this entry. Precondition: a share-aware entry gets a share view.
  std::unique_ptr<PlacementPolicy> (*make)(const PlacementInfo& self, const PlacementContext& in,
                                           const ParameterSet& params) = nullptr;
  // Reads the entry's parameters from `scheduler.params` (marking its keys as known) and
  // returns their declared echo and values.
  ParameterSet (*read_params)(JsonObject& params) = nullptr;
};

// Every entry, in listing order. `best-fit` appears once, as the topology policy; under a
// model limiting compute shares resolve_placement() gives the FGD study's best-fit instead.
const Registry<PlacementInfo>& placement_policies();

// The entry `name` denotes under a model that does (`model_limits_shares`) or does not limit
// compute shares, or nullptr for an unknown name.
const PlacementInfo* resolve_placement(std::string_view name, bool model_limits_shares);

// Reads `info`'s parameters from `params` (the entry's read_params, or none).
ParameterSet read_placement_params(const PlacementInfo& info, JsonObject& params);

// Builds the policy of `info` with `params` (from read_placement_params).
std::unique_ptr<PlacementPolicy> make_placement(const PlacementInfo& info,
                                                const PlacementContext& in,
                                                const ParameterSet& params);

// Adds a placement policy at run time under `name` (the Python package's policies,
// callback_placement.h), after the built-in ones: scenarios name it in scheduler.placement,
// under any sharing model, and `make` builds it once per run. Takes no parameters. Throws
// std::invalid_argument for a name already in the table (a built-in one included) or an empty
// one, std::length_error past 64 added policies. Not while a run goes on: runs read the table
// without locks.
void register_placement_policy(std::string name, std::string summary,
                               std::function<std::unique_ptr<PlacementPolicy>()> make);

// A topology policy by name with its default parameters (benchmarks, tests): the entry `name`
// denotes without share limits. Throws std::invalid_argument for a name that is not a
// topology policy of the table.
std::unique_ptr<PlacementPolicy> make_placement_policy(std::string_view name);

}  // namespace gpumux
