#include "sim/placement/fgd/choose_node.h"

#include <numeric>

namespace gpumux::packing {

int whole_gpus(const NodeState& node, int count, GpuMask mask, std::span<std::int8_t> out) {
  int taken = 0;
  for (int g = 0; g < node.num_gpus && taken < count; ++g) {
    if (allowed(mask, g) && node.gpu_left[static_cast<std::size_t>(g)] == kGpuMilli) {
      out[static_cast<std::size_t>(taken++)] = static_cast<std::int8_t>(g);
    }
  }
  return taken;
}

NodeChooser::NodeChooser(Policy policy, TieBreak tie_break, std::size_t num_nodes, PackRng& rng)
    : policy_(policy), tie_break_(tie_break), order_(num_nodes) {
  std::iota(order_.begin(), order_.end(), 0);
  for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng.below(i)]);
}

int NodeChooser::class_of(const PodDemand& pod, std::size_t num_nodes) {
  const ClassKey key{pod.score_cpu_milli, pod.gpu_milli, pod.num_gpus, pod.any_model,
                     pod.model_mask};
  for (std::size_t i = 0; i < classes_.size(); ++i) {
    if (classes_[i] == key) return static_cast<int>(i);
  }
  classes_.push_back(key);
  cache_.resize(classes_.size() * num_nodes);
  return static_cast<int>(classes_.size()) - 1;
}

NodeChoice NodeChooser::choose(std::span<const NodeState> nodes,
                               std::span<const std::int64_t> units,
                               std::span<const std::uint32_t> versions,
                               const FragmentationModel& frag, const PodDemand& pod,
                               std::span<const GpuMask> masks, PackRng& rng) {
  const int num_nodes = static_cast<int>(nodes.size());
  auto mask_of = [&](int n) {
    return masks.empty() ? kAllGpus : masks[static_cast<std::size_t>(n)];
  };
  int chosen = -1;
  int chosen_gpu = -1;
  if (policy_ == Policy::kRandom) {
    std::uint64_t feasible = 0;
    for (int n = 0; n < num_nodes; ++n) {
      if (!fits(nodes[static_cast<std::size_t>(n)], pod, mask_of(n))) continue;
      if (rng.below(++feasible) == 0) chosen = n;
    }
  } else {
    // Only FGD is costly enough to be worth caching; `cls` is looked up once per pod.
    const int cls = policy_ == Policy::kFgd ? class_of(pod, nodes.size()) : -1;
    CacheEntry* row = cls >= 0 ? &cache_[static_cast<std::size_t>(cls) * nodes.size()] : nullptr;
    int best = -1;
    std::uint64_t ties = 0;
    const bool uniform_ties = tie_break_ == TieBreak::kUniform;
    for (int k = 0; k < num_nodes; ++k) {
      const int n = uniform_ties ? k : order_[static_cast<std::size_t>(k)];
      const NodeState& node = nodes[static_cast<std::size_t>(n)];
      const GpuMask mask = mask_of(n);
      if (!fits(node, pod, mask)) continue;
      int score = 0;
      int gpu = -1;
      switch (policy_) {
        case Policy::kDotProd:
          score = dot_product_score(node, pod);
          break;
        case Policy::kGpuClustering:
          score = gpu_clustering_score(node, pod);
          break;
        case Policy::kGpuPacking:
          score = gpu_packing_score(node, pod);
          break;
        case Policy::kBestFit:
          score = best_fit_score(node, pod);
          break;
        case Policy::kFgd: {
          CacheEntry& e = row[n];
          const std::uint32_t version = versions[static_cast<std::size_t>(n)];
          if (e.version != version || e.gpus != mask) {
            const FgdChoice c =
                fgd_score(node, pod, frag, units[static_cast<std::size_t>(n)], mask);
            e.version = version;
            e.gpus = mask;
            e.score = static_cast<std::int16_t>(c.score);
            e.gpu = static_cast<std::int8_t>(c.gpu);
          }
          score = e.score;
          gpu = e.gpu;
          break;
        }
        case Policy::kRandom:
          break;
      }
      if (score > best) {
        best = score;
        ties = 1;
        chosen = n;
        chosen_gpu = gpu;
      } else if (uniform_ties && score == best && rng.below(++ties) == 0) {
        chosen = n;
        chosen_gpu = gpu;
      }
    }
  }
  NodeChoice out{chosen, -1};
  if (chosen < 0 || !pod.is_gpu() || !pod.is_share()) return out;
  const NodeState& node = nodes[static_cast<std::size_t>(chosen)];
  const GpuMask mask = mask_of(chosen);
  if (policy_ == Policy::kFgd) {
    out.share_gpu = chosen_gpu;
  } else if (policy_ == Policy::kRandom) {
    std::uint64_t fitting = 0;
    for (int g = 0; g < node.num_gpus; ++g) {
      if (allowed(mask, g) && node.gpu_left[static_cast<std::size_t>(g)] >= pod.gpu_milli &&
          rng.below(++fitting) == 0) {
        out.share_gpu = g;
      }
    }
  } else {
    out.share_gpu = tightest_gpu(node, pod.gpu_milli, mask);
  }
  return out;
}

}  // namespace gpumux::packing
