// GPU fragmentation of a node against the "typical pods" of a workload, as defined by the FGD
// study (Weng et al., USENIX ATC'23, section 3) and its public simulator.
//
// Typical pods: the pod list is grouped by (CPU request, per-GPU milli, GPU count, gpu_spec
// text); groups are ranked by count (ties: larger CPU, then milli, GPU count, spec text first)
// and the most popular groups covering >= 95% of pods are kept, their frequencies renormalised
// to sum to 1. CPU-only pods are included. Memory is not part of the key.
//
// Fragmentation of node n (in milli-GPU) = sum over typical pods p of freq(p) * F(n, p), where,
// with L = the node's total idle GPU milli:
//   - p is CPU-only, or n's GPU model is not acceptable to p        -> F = L
//   - n can host p (enough GPUs with >= p's milli left, and CPU)    -> F = idle milli on the
//                                                                     GPUs too small for p
//   - otherwise (lacks GPU and/or CPU)                              -> F = L
// A node without idle GPU milli has fragmentation 0. Counting CPU-only pods' share as fragment
// is what the published simulator does, kept for fidelity.
//
// Values are kept exact as integers: units = sum(count(p) * F(n, p)), and
// fragmentation_milli = units / denominator(), denominator = the kept pods' total count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/placement/fgd/node_state.h"
#include "sim/placement/fgd/pod_types.h"

namespace gpumux::packing {

struct TypicalPod {
  PodDemand demand;  // score_cpu_milli is the CPU request used in the test
  std::string gpu_spec;
  std::int64_t count = 0;
};

struct TypicalPods {
  std::vector<TypicalPod> pods;  // most popular first
  std::int64_t kept_count = 0;   // sum of `count` over `pods`
  std::int64_t total_count = 0;  // pods in the workload
};

// Precondition: 0 < popularity_pct <= 100.
TypicalPods compute_typical_pods(const std::vector<PodSpec>& workload, const GpuModelTable& models,
                                 double popularity_pct = 95.0);

// The ranking and cut of compute_typical_pods for pods already counted by group (each group's
// key, (score CPU, milli, GPU count, spec text), distinct; `count` > 0): the caller may count a
// workload as it streams, in memory that grows with its distinct groups, not its pods.
// total_count = the sum of the counts. Precondition: 0 < popularity_pct <= 100.
TypicalPods select_typical_pods(std::vector<TypicalPod> groups, double popularity_pct = 95.0);

class FragmentationModel {
 public:
  FragmentationModel(const TypicalPods& typical, int num_models);

  // Fragmentation of `n` times denominator(). Allocation-free.
  std::int64_t units(const NodeState& n) const;
  std::int64_t denominator() const { return denominator_; }
  double milli(const NodeState& n) const {
    return static_cast<double>(units(n)) / static_cast<double>(denominator_);
  }

 private:
  struct Entry {
    std::int64_t cpu_milli;
    std::int32_t gpu_milli;
    std::int32_t num_gpus;
    std::int64_t count;
  };
  struct PerModel {
    std::int64_t whole_count = 0;  // pods for which F = L regardless of the node's state
    std::vector<Entry> entries;    // pods for which F depends on the state
  };
  std::vector<PerModel> per_model_;  // index = model + 1 (0: node without a GPU model)
  std::int64_t denominator_ = 1;
};

}  // namespace gpumux::packing
