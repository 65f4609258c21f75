// The FGD study's placement policies inside `gpumux run` (entries of the placement table,
// registry.h: scheduler.placement `random`,
// `dot-product`, `gpu-clustering`, `gpu-packing`, `fgd`, and `best-fit` under models that
// limit compute shares): the decision is packing::NodeChooser, the code `gpumux pack` runs, on
// the cluster's state as ShareView mirrors it.
//
// A job goes to one node: the policy scores the nodes where it fits, a share of one GPU gets
// the GPU the policy picks, a whole-GPU job the lowest-indexed free GPUs. A job fits a node
// when the GPUs' milli-GPU left (1000 less the residents' gpu_milli) can take it, as the
// study's scheduler counts, and the sharing model admits it on the GPUs the policy may pick
// (a mask per node); GPUs out of service are never picked. Ties go to the first node in a
// random order drawn once per run from the scenario's seed (the study's behaviour,
// packing::TieBreak::kNodeOrder). A gang larger than every node is placed by first-fit across
// nodes. On a cluster with node CPUs (Cluster::tracks_cpus) a node without the job's cores
// free is left out (its mask stays empty); the scores still see no CPUs
// (sim/placement/share_view.h). Usable only under models that admit fractional jobs (timeslice,
// mps, fractional).
//
// Cost per decision: O(GPUs) to build the masks (room pruning first, `admits` only where the
// milli left fits), plus the policy's scoring: FGD rescoring only nodes that changed since the
// job's class was last placed. Under a model with admission by key a job whose kind was last
// found on no node costs only a look at the nodes changed since (refused_kinds.h), and a job
// that fits no node skips the scoring. blocked_reason() costs a look at every GPU, or under
// admission by key, asked again for the kind it was last asked for, at the GPUs of the nodes
// changed since.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/placement/fgd/choose_node.h"
#include "sim/placement/placement.h"
#include "sim/placement/refused_kinds.h"
#include "sim/placement/share_view.h"

namespace gpumux {

class SharePlacement : public PlacementPolicy {
 public:
  // `view` must outlive the placement and observe the same engine.
  SharePlacement(std::string name, packing::Policy policy, ShareView& view, std::uint64_t seed);

  std::string_view name() const override { return name_; }
  bool place(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
             const JobSpec& job, std::vector<GpuIndex>& out) override;
  // As place() checks: a GPU without the job's milli-GPU left counts under kGpus, a node
  // without all the job's cores free under kCpuCores, and a whole-GPU gang that enough GPUs
  // pass on no single node under kGang.
  QueueReason blocked_reason(const Cluster& cluster, const SharingModel& model,
                             GpuViewBuilder& views, const JobSpec& job) override;
  bool places_by_kind() const override { return true; }
  // Under a model with admission by key: the job's kind was found on no node, and no node
  // changed since takes it (sim/placement/refused_kinds.h).
  bool surely_refused(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                      const JobSpec& job) override;

 private:
  std::string name_;
  ShareView& view_;
  packing::PackRng rng_;
  packing::NodeChooser chooser_;
  std::unique_ptr<PlacementPolicy> across_nodes_;  // first-fit, for gangs larger than a node
  // What one node offers a job: the GPUs it may take there (place()'s masks) and whether the
  // node fits it then (packing::fits). The one test both place() and surely_refused() use.
  struct NodeOffer;
  packing::GpuMask node_mask(const Cluster& cluster, const SharingModel& model,
                             GpuViewBuilder& views, const JobSpec& job, const NodeOffer& offer,
                             NodeIndex n) const;

  // Adds node n's GPUs to `tally` as blocked_reason() counts them.
  void tally_node(const Cluster& cluster, GpuRefusals& refusals, int gpu_need, std::int64_t cpu,
                  NodeIndex n, BlockedTally& tally) const;

  std::vector<packing::GpuMask> masks_;
  RefusedKinds refused_;  // under models with admission by key
  // blocked_reason()'s last count under a model with admission by key: the kind it was for,
  // the change position it holds for, and each node's part, so that asking again for the same
  // kind recounts only the nodes changed since.
  bool tally_kept_ = false;
  RequestKind tally_kind_;
  std::uint64_t tally_at_ = 0;
  BlockedTally tally_;
  std::vector<BlockedTally> node_tally_;
};


}  // namespace gpumux
