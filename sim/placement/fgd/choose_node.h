// One placement decision of the FGD study's policies: which node (and, for a share pod, which
// GPU) a pod goes to, given every node's state. The one implementation behind both
// `gpumux pack` (PackingSimulator, a static snapshot) and `gpumux run` (sim/placement/share_placement.h,
// over time): the same states and pods give the same choices (tests/packing/shared_choice_test).
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "sim/placement/fgd/fragmentation.h"
#include "sim/placement/fgd/node_state.h"
#include "sim/placement/fgd/policy.h"

namespace gpumux::packing {

// The run's one RNG, with a bounded draw that does not depend on the standard library's
// distribution implementation (so results are identical across toolchains).
class PackRng {
 public:
  explicit PackRng(std::uint64_t seed) : engine_(seed) {}
  // Uniform in [0, n). Precondition: n > 0.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % n;
    std::uint64_t x;
    do {
      x = engine_();
    } while (x >= limit);
    return x % n;
  }

 private:
  std::mt19937_64 engine_;
};

// How a policy chooses among nodes with the same (maximal) score.
enum class TieBreak {
  // The first node in a random order of the nodes drawn once per run (the default). This is
  // what the study's simulator does in effect: it renames every node with a random numeric
  // prefix and its scheduler (a Kubernetes fork) then settles ties by node, so equal-score
  // pods keep landing on the same nodes. It packs CPU-only pods under GpuPacking,
  // GpuClustering and FGD, whose scores tie for them.
  kNodeOrder,
  // Upstream Kubernetes: uniformly at random among the tied nodes, per pod. It spreads tied
  // pods and loses 2-5 pp of allocation under GpuPacking, GpuClustering and FGD against the
  // published results (see bench/validation/fgd/RESULTS.md).
  kUniform,
};

struct NodeChoice {
  int node = -1;       // -1: no node fits
  int share_gpu = -1;  // for a share pod: its GPU on `node`
};

// The lowest-indexed allowed, fully free GPUs of `node` for a whole-GPU pod, written to
// `out`; returns how many (at most `count`).
int whole_gpus(const NodeState& node, int count, GpuMask mask, std::span<std::int8_t> out);

class NodeChooser {
 public:
  // Draws the tie-break node order (TieBreak::kNodeOrder) from `rng`: a uniformly random
  // permutation of `num_nodes` nodes.
  NodeChooser(Policy policy, TieBreak tie_break, std::size_t num_nodes, PackRng& rng);

  // Chooses a node for `pod`. `units[n]` must equal frag.units(nodes[n]), and `versions[n]`
  // must change whenever nodes[n] does (FGD scores are cached per pod class and node
  // version). `masks[n]` are the GPUs the pod may use on node n (empty span: all). Draws from
  // `rng` only for the Random policy and uniform tie-breaks.
  NodeChoice choose(std::span<const NodeState> nodes, std::span<const std::int64_t> units,
                    std::span<const std::uint32_t> versions, const FragmentationModel& frag,
                    const PodDemand& pod, std::span<const GpuMask> masks, PackRng& rng);

  Policy policy() const { return policy_; }

 private:
  int class_of(const PodDemand& pod, std::size_t num_nodes);

  Policy policy_;
  TieBreak tie_break_;
  std::vector<int> order_;  // node visiting order for TieBreak::kNodeOrder

  // FGD scores are cached per (pod class, node) and invalidated by the node's version (and the
  // GPUs allowed), so a pod only rescores nodes that changed since its class was last placed.
  struct ClassKey {
    std::int64_t cpu;
    int milli, num;
    bool any;
    std::uint64_t mask;
    bool operator==(const ClassKey&) const = default;
  };
  struct CacheEntry {
    std::uint32_t version = 0;
    GpuMask gpus = 0;
    std::int16_t score = 0;
    std::int8_t gpu = -1;
  };
  std::vector<ClassKey> classes_;
  std::vector<CacheEntry> cache_;  // [class * nodes + node]
};

}  // namespace gpumux::packing
