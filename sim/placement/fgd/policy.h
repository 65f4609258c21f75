// The six node-scoring policies compared by the FGD study, as its public simulator
// (hkust-adsl/kubernetes-scheduler-simulator) implements them as Kubernetes score plugins.
//
// Every policy scores each feasible node with an integer in [0, 100] (Kubernetes' node score
// range; the truncation to integers creates many ties), the highest score wins, and ties are
// settled as TieBreak (packing_sim.h) says. Inside the chosen node, a share pod
// gets one GPU chosen by the policy's GPU selector; whole-GPU pods get the lowest-indexed fully
// free GPUs.
//
//   Random         a uniformly random feasible node; random fitting GPU.
//   DotProd        Tetris-style alignment of the node's free (CPU, total GPU) with the pod's
//                  request, each normalised by the largest node spec (128 cores, 8 GPUs):
//                  score = 100 * (1 - dot / 2); the simulator inverts Tetris so that *less*
//                  aligned free space wins. Best-fit GPU.
//   GpuClustering  keeps pods of the same kind (share, 1-GPU, 2-GPU, ...) together: nodes that
//                  host only this kind score 75..100, mixed nodes holding it 50..75, empty nodes
//                  25..50, others 0..25, plus more within each band the fuller the node's GPUs.
//                  CPU-only pods score 0 everywhere. Best-fit GPU.
//   GpuPacking     prefers (1) already-shared GPUs, tighter first, (2) free GPUs on used nodes,
//                  (3) idle nodes, smaller first. CPU-only pods score 0 everywhere. Best-fit GPU.
//   BestFit        prefers the node with the least free CPU and GPU left after placement
//                  (weights 0.5 / 0.5, normalised by 128 cores and 8 GPUs). Best-fit GPU.
//   FGD            minimises the growth of the node's fragmentation (see fragmentation.h):
//                  score = 100 * sigmoid((frag_before - frag_after) / 1000), and picks the GPU
//                  that maximises that score.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/placement/fgd/fragmentation.h"
#include "sim/placement/fgd/node_state.h"

namespace gpumux::packing {

enum class Policy { kRandom, kDotProd, kGpuClustering, kGpuPacking, kBestFit, kFgd };

inline constexpr std::array<Policy, 6> kAllPolicies = {Policy::kRandom,        Policy::kDotProd,
                                                       Policy::kGpuClustering, Policy::kGpuPacking,
                                                       Policy::kBestFit,       Policy::kFgd};

// "Random", "DotProd", "GpuClustering", "GpuPacking", "BestFit", "FGD".
std::string_view policy_name(Policy p);
// Case-insensitive; std::nullopt for unknown names.
std::optional<Policy> parse_policy(std::string_view name);
// "Random, DotProd, GpuClustering, GpuPacking, BestFit, FGD" for messages and help.
std::string policy_name_list();

inline constexpr int kMaxNodeScore = 100;
inline constexpr std::int64_t kMaxSpecCpuMilli = 128000;  // normaliser used by the study
inline constexpr std::int64_t kMaxSpecGpuMilli = 8000;

// Node scores in [0, 100]. Precondition for all: fits(node, pod).
int dot_product_score(const NodeState& node, const PodDemand& pod);
int gpu_clustering_score(const NodeState& node, const PodDemand& pod);
int gpu_packing_score(const NodeState& node, const PodDemand& pod);
int best_fit_score(const NodeState& node, const PodDemand& pod);

struct FgdChoice {
  int score = 0;
  int gpu = -1;  // for share pods: the GPU to use; -1 otherwise
};
// `units_before` must equal frag.units(node) (callers keep it cached). Only GPUs in `mask`
// are considered for the pod.
FgdChoice fgd_score(const NodeState& node, const PodDemand& pod, const FragmentationModel& frag,
                    std::int64_t units_before, GpuMask mask = kAllGpus);

// The fitting GPU in `mask` with the least milli left (lowest index among equals), or -1.
int tightest_gpu(const NodeState& node, int gpu_milli, GpuMask mask = kAllGpus);

}  // namespace gpumux::packing
