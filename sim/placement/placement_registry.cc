#include "sim/placement/placement_registry.h"

#include <stdexcept>

#include "sim/placement/share_placement.h"

namespace gpumux {

namespace {

using packing::Policy;
constexpr PlacementNeeds kAny = PlacementNeeds::kAnyModel;
constexpr PlacementNeeds kShares = PlacementNeeds::kFractionalJobs;

// Under a model that limits compute shares, `best-fit` names this entry instead of the
// topology one (the FGD study's best-fit, as `gpumux pack` runs it).
const PlacementInfo kShareBestFit{"best-fit",
                                  "the FGD study's best-fit: the node with the least CPU and GPU "
                                  "left",
                                  kShares,
                                  true,
                                  TopologyFit::kFirst,
                                  Policy::kBestFit};

}  // namespace

const std::vector<PlacementInfo>& placement_policies() {
  static const std::vector<PlacementInfo> table = {
      {"first-fit", "the lowest-index GPUs that take the job, a gang on as few nodes as it fits",
       kAny, false, TopologyFit::kFirst},
      {"best-fit",
       "the GPUs that leave the least room, a gang on the tightest node (under fractional: the "
       "FGD study's best-fit)",
       kAny, false, TopologyFit::kBest},
      {"spread", "the least-loaded node that holds the job", kAny, false, TopologyFit::kSpread},
      {"random", "the FGD study's random feasible node and GPU", kShares, true, TopologyFit::kFirst,
       Policy::kRandom},
      {"dot-product", "the FGD study's dot-product (least aligned free space) node", kShares, true,
       TopologyFit::kFirst, Policy::kDotProd},
      {"gpu-clustering", "the FGD study's GPU clustering: pods of one kind together", kShares, true,
       TopologyFit::kFirst, Policy::kGpuClustering},
      {"gpu-packing", "the FGD study's GPU packing: shared GPUs first, then used nodes", kShares,
       true, TopologyFit::kFirst, Policy::kGpuPacking},
      {"fgd", "fragmentation gradient descent: the least growth of GPU fragmentation", kShares,
       true, TopologyFit::kFirst, Policy::kFgd},
  };
  return table;
}

const PlacementInfo* resolve_placement(std::string_view name, bool model_limits_shares) {
  if (model_limits_shares && name == kShareBestFit.name) return &kShareBestFit;
  for (const auto& p : placement_policies()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string placement_names_text() {
  std::string out;
  for (const auto& p : placement_policies()) {
    out += (out.empty() ? "" : ", ") + std::string(p.name);
  }
  return out;
}

std::unique_ptr<PlacementPolicy> make_placement(const PlacementInfo& info, ShareView* view,
                                                std::uint64_t seed) {
  if (!info.share_aware) return make_topology_placement(info.fit);
  return std::make_unique<SharePlacement>(std::string(info.name), info.share_policy, *view, seed);
}

std::unique_ptr<PlacementPolicy> make_placement_policy(std::string_view name) {
  const PlacementInfo* info = resolve_placement(name, false);
  if (!info || info->share_aware) {
    throw std::invalid_argument("not a topology placement policy: '" + std::string(name) + "'");
  }
  return make_topology_placement(info->fit);
}

}  // namespace gpumux
