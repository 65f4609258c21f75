// The packing simulator of the FGD study: pods arrive one by one, are placed by a policy or
// fail, and never leave. `run_inflation` reproduces the study's "workload inflation"
// experiment and its allocation-vs-arrival curve.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/placement/fgd/choose_node.h"
#include "sim/placement/fgd/fragmentation.h"
#include "sim/placement/fgd/node_state.h"
#include "sim/placement/fgd/pod_types.h"
#include "sim/placement/fgd/policy.h"

namespace gpumux::packing {

struct Placement {
  int node = -1;
  int num_gpus = 0;  // entries used in `gpus`
  std::array<std::int8_t, kMaxGpusPerNode> gpus{};
};

class PackingSimulator {
 public:
  // `workload` defines the typical pods (fragmentation); it is usually the pod list whose
  // samples will be scheduled. Throws InputError when a node has more than 64 GPU models.
  PackingSimulator(const std::vector<NodeSpec>& nodes, const std::vector<PodSpec>& workload,
                   Policy policy, std::uint64_t seed, TieBreak tie_break = TieBreak::kNodeOrder);

  PodDemand demand_of(const PodSpec& pod) const { return make_demand(pod, models_); }

  // Places the pod (updating the cluster) or returns std::nullopt when no node fits.
  std::optional<Placement> schedule(const PodSpec& pod);
  std::optional<Placement> schedule(const PodDemand& pod);

  const std::vector<NodeState>& nodes() const { return nodes_; }
  const GpuModelTable& models() const { return models_; }
  const TypicalPods& typical_pods() const { return typical_; }
  const FragmentationModel& fragmentation() const { return frag_; }

  std::int64_t total_gpus() const { return total_gpus_; }
  std::int64_t allocated_gpu_milli() const { return allocated_gpu_milli_; }
  // Cluster fragmentation and idle GPU, in milli-GPU.
  double fragmentation_milli() const {
    return static_cast<double>(frag_units_total_) / static_cast<double>(frag_.denominator());
  }
  std::int64_t idle_gpu_milli() const { return total_gpus_ * kGpuMilli - allocated_gpu_milli_; }

  PackRng& rng() { return rng_; }

 private:
  void apply(int node, const PodDemand& pod, int share_gpu, Placement& out);

  PackRng rng_;
  GpuModelTable models_;
  std::vector<NodeState> nodes_;
  TypicalPods typical_;
  FragmentationModel frag_;
  std::vector<std::int64_t> node_frag_units_;
  std::int64_t frag_units_total_ = 0;
  std::int64_t total_gpus_ = 0;
  std::int64_t allocated_gpu_milli_ = 0;
  std::vector<std::uint32_t> node_version_;  // bumped whenever a node changes

  NodeChooser chooser_;
};

struct PackOptions {
  Policy policy = Policy::kFgd;
  std::uint64_t seed = 42;
  int arrive_to = 130;  // target arrived GPU request, % of cluster GPU capacity
  TieBreak tie_break = TieBreak::kNodeOrder;
};

struct CurvePoint {
  int arrived_pct = 0;
  std::optional<double> alloc_pct;  // allocated / total GPU milli, %; absent when no sample
  std::optional<double> frag_pct;   // fragmentation / idle GPU milli, %
};

struct PackResult {
  std::vector<CurvePoint> curve;  // arrived_pct = 0 .. arrive_to
  std::size_t pods_arrived = 0;
  std::size_t pods_failed = 0;
  std::int64_t arrived_gpu_milli = 0;
  std::int64_t allocated_gpu_milli = 0;
  std::int64_t total_gpus = 0;
  std::size_t typical_pod_kinds = 0;
};

// The arrival sequence of the study's workload inflation, as indices into `pods`: the list in
// name order, shuffled; then, while the total GPU request (sum of num_gpu * gpu_milli) is below
// ratio * capacity, pods drawn uniformly with replacement are appended, stopping at the first
// draw whose *per-GPU* milli would overshoot (the study's exact test); above the target, random
// pods are removed instead; a list without GPU pods is only shuffled (its request cannot grow).
// Precondition: `pods` non-empty.
std::vector<std::size_t> inflation_sequence(const std::vector<PodSpec>& pods,
                                            std::int64_t cluster_gpu_milli, double ratio,
                                            PackRng& rng);

// Runs one inflation experiment. After every arrival the cluster's allocation is sampled; the
// curve averages, for each integer arrived % (rounded half-to-even, as the study's pandas
// analysis does), the samples that round to it (if none, those within +-1 %), each rounded to
// 0.01 first. Failed pods count as arrived.
PackResult run_inflation(const std::vector<NodeSpec>& nodes, const std::vector<PodSpec>& pods,
                         const PackOptions& options);

}  // namespace gpumux::packing
