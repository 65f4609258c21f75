// The packing simulator's view of nodes and pods: plain, fixed-size values so that scoring a
// candidate node copies a few hundred bytes on the stack and never allocates.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/placement/fgd/pod_types.h"

namespace gpumux::packing {

// GPU model names of one cluster, each mapped to a bit of a 64-bit mask.
class GpuModelTable {
 public:
  static constexpr int kMaxModels = 64;
  // Returns the model's index, adding it when new. Throws InputError (naming `where`) when a
  // 65th model appears.
  int intern(const std::string& name, const std::string& where);
  // Index of `name`, or -1 when the cluster has no such model.
  int find(std::string_view name) const;
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
};

// What a pod asks for, resolved against a cluster's GpuModelTable.
struct PodDemand {
  std::int64_t cpu_milli = 0;        // as requested: used for the capacity check
  std::int64_t score_cpu_milli = 0;  // Kubernetes' scoring view: 0 is read as 100 (its default)
  std::int64_t memory_mib = 0;
  int num_gpus = 0;
  int gpu_milli = 0;             // per GPU
  bool any_model = true;         // no gpu_spec
  std::uint64_t model_mask = 0;  // accepted models when !any_model (may be 0: none in cluster)

  bool is_gpu() const { return num_gpus > 0 && gpu_milli > 0; }
  // A share of one GPU (the only fractional request the model supports).
  bool is_share() const { return num_gpus == 1 && gpu_milli < kGpuMilli; }
  std::int64_t total_gpu_milli() const { return std::int64_t{num_gpus} * gpu_milli; }
};

// Resolves a pod against the cluster's models. Spec entries naming models absent from the
// cluster are kept as "accepts nothing here", so such a pod can never be placed.
PodDemand make_demand(const PodSpec& pod, const GpuModelTable& models);

struct NodeState {
  static constexpr int kNoModel = -1;

  std::int64_t cpu_capacity = 0;
  std::int64_t cpu_left = 0;
  std::int64_t memory_left_mib = 0;
  int num_gpus = 0;
  int model = kNoModel;
  std::array<std::int32_t, kMaxGpusPerNode> gpu_left{};  // milli left per GPU, index = device
  // Pods placed per "GPU affinity" tag, as GpuClustering counts them: [0] share-GPU pods,
  // [k] pods of k whole GPUs. `affinity_kinds` = number of non-zero tags.
  std::array<std::int32_t, kMaxGpusPerNode + 1> affinity{};
  int affinity_kinds = 0;

  std::int64_t gpu_left_total() const {
    std::int64_t s = 0;
    for (int g = 0; g < num_gpus; ++g) s += gpu_left[static_cast<std::size_t>(g)];
    return s;
  }
  int fully_free_gpus() const {
    int n = 0;
    for (int g = 0; g < num_gpus; ++g) n += gpu_left[static_cast<std::size_t>(g)] == kGpuMilli;
    return n;
  }
};

// A fresh node. Precondition: spec.num_gpus <= kMaxGpusPerNode.
NodeState make_node_state(const NodeSpec& spec, const GpuModelTable& models);

// Whether the node's GPU model is acceptable to the pod (true for pods without gpu_spec).
inline bool model_accessible(const NodeState& n, const PodDemand& p) {
  if (p.any_model) return true;
  return n.model >= 0 && ((p.model_mask >> n.model) & 1u) != 0;
}

// A set of a node's GPUs (bit g = GPU g): the GPUs a pod may use. `gpumux pack` allows all;
// `gpumux run` allows those the sharing model admits the job on.
using GpuMask = std::uint32_t;
inline constexpr GpuMask kAllGpus = ~GpuMask{0};
static_assert(kMaxGpusPerNode <= 32, "GpuMask holds one bit per GPU of a node");
inline bool allowed(GpuMask mask, int gpu) { return ((mask >> gpu) & 1u) != 0; }

// The placement filter: CPU, memory, GPU model and GPU capacity (a share needs one allowed GPU
// with enough milli left; whole GPUs must be allowed and completely free).
bool fits(const NodeState& n, const PodDemand& p, GpuMask mask = kAllGpus);

}  // namespace gpumux::packing
