#include "sim/placement/registry.h"

#include <deque>
#include <functional>
#include <stdexcept>
#include <string>

#include "sim/placement/share_placement.h"

namespace gpumux {

namespace {

using packing::Policy;
constexpr PlacementNeeds kAny = PlacementNeeds::kAnyModel;
constexpr PlacementNeeds kShares = PlacementNeeds::kFractionalJobs;

// A topology policy: needs nothing but its factory.
template <std::unique_ptr<PlacementPolicy> (*kMake)()>
std::unique_ptr<PlacementPolicy> make_topology(const PlacementInfo&, const PlacementContext&,
                                               const ParameterSet&) {
  return kMake();
}

// A row of the FGD study: its scorer decides among the nodes of the share view.
std::unique_ptr<PlacementPolicy> make_share(const PlacementInfo& self, const PlacementContext& in,
                                            const ParameterSet&) {
  if (in.share_view == nullptr) {
    throw std::logic_error("placement '" + std::string(self.name) + "' needs a share view");
  }
  return std::make_unique<SharePlacement>(std::string(self.name), self.scorer, *in.share_view,
                                          in.seed);
}

// Under a model that limits compute shares, `best-fit` names this entry instead of the
// topology one (the FGD study's best-fit, as `gpumux pack` runs it).
const PlacementInfo kShareBestFit{
    "best-fit",       "the FGD study's best-fit: the node with the least CPU and GPU left",
    kShares,          true,
    Policy::kBestFit, make_share};

// Room for the policies register_placement_policy adds: entries never move, so the pointers
// scenarios hold stay valid.
constexpr std::size_t kMaxRegistered = 64;

// What a registered policy's entry points into: its name, summary and factory, which never move.
struct RegisteredPolicy {
  std::string name;
  std::string summary;
  std::function<std::unique_ptr<PlacementPolicy>()> make;
};

std::deque<RegisteredPolicy>& registered_policies() {
  static std::deque<RegisteredPolicy> policies;
  return policies;
}

std::unique_ptr<PlacementPolicy> make_registered(const PlacementInfo& self, const PlacementContext&,
                                                 const ParameterSet&) {
  for (const RegisteredPolicy& p : registered_policies()) {
    if (p.name == self.name) return p.make();
  }
  throw std::logic_error("placement '" + std::string(self.name) + "' has no factory");
}

Registry<PlacementInfo>& placement_table() {
  static Registry<PlacementInfo> table(
      "placement policy",
      {
          {"first-fit",
           "the lowest-index GPUs that take the job, a gang on as few nodes as it fits", kAny,
           false, Policy::kFgd, make_topology<make_first_fit_placement>},
          {"best-fit",
           "the GPUs that leave the least room, a gang on the tightest node (under fractional: "
           "the FGD study's best-fit)",
           kAny, false, Policy::kFgd, make_topology<make_best_fit_placement>},
          {"spread", "the least-loaded node that holds the job", kAny, false, Policy::kFgd,
           make_topology<make_spread_placement>},
          {"random", "the FGD study's random feasible node and GPU", kShares, true, Policy::kRandom,
           make_share},
          {"dot-product", "the FGD study's dot-product (least aligned free space) node", kShares,
           true, Policy::kDotProd, make_share},
          {"gpu-clustering", "the FGD study's GPU clustering: pods of one kind together", kShares,
           true, Policy::kGpuClustering, make_share},
          {"gpu-packing", "the FGD study's GPU packing: shared GPUs first, then used nodes",
           kShares, true, Policy::kGpuPacking, make_share},
          {"fgd", "fragmentation gradient descent: the least growth of GPU fragmentation", kShares,
           true, Policy::kFgd, make_share},
      });
  static const bool reserved = (table.reserve_extra(kMaxRegistered), true);
  (void)reserved;
  return table;
}

}  // namespace

const Registry<PlacementInfo>& placement_policies() { return placement_table(); }

void register_placement_policy(std::string name, std::string summary,
                               std::function<std::unique_ptr<PlacementPolicy>()> make) {
  if (name.empty()) throw std::invalid_argument("a placement policy needs a name");
  if (!make) throw std::invalid_argument("placement policy '" + name + "' needs a factory");
  Registry<PlacementInfo>& table = placement_table();
  if (table.find(name) != nullptr) {
    throw std::invalid_argument("placement policy '" + name + "' already exists");
  }
  std::deque<RegisteredPolicy>& policies = registered_policies();
  policies.push_back({std::move(name), std::move(summary), std::move(make)});
  const RegisteredPolicy& p = policies.back();
  try {
    table.add(PlacementInfo{p.name, p.summary, kAny, false, Policy::kFgd, make_registered});
  } catch (...) {
    policies.pop_back();
    throw;
  }
}

const PlacementInfo* resolve_placement(std::string_view name, bool model_limits_shares) {
  if (model_limits_shares && name == kShareBestFit.name) return &kShareBestFit;
  return placement_policies().find(name);
}

ParameterSet read_placement_params(const PlacementInfo& info, JsonObject& params) {
  return info.read_params ? info.read_params(params) : ParameterSet{};
}

std::unique_ptr<PlacementPolicy> make_placement(const PlacementInfo& info,
                                                const PlacementContext& in,
                                                const ParameterSet& params) {
  return info.make(info, in, params);
}

std::unique_ptr<PlacementPolicy> make_placement_policy(std::string_view name) {
  const PlacementInfo* info = resolve_placement(name, false);
  if (!info || info->share_aware) {
    throw std::invalid_argument("not a topology placement policy: '" + std::string(name) + "'");
  }
  return make_placement(*info, PlacementContext{}, ParameterSet{});
}

}  // namespace gpumux
