// Why a placement policy found no GPUs for a job: the reason the head of the queue could not
// start (sim/core/queue_reason.h), derived from the checks placement makes.
//
// Every GPU of the cluster is counted under the first check it fails, in QueueReason's order:
// out of service (kUnavailable), then the sharing model's refusal (SharingModel::refusal or
// room_refusal: kGpus, kAdmission, kMemory, kMigFit), then its node's free CPU cores
// (kCpuCores: the GPUs the model admits beyond those whose share of the job's cores the node
// has free, as placement caps them). The head's reason is the first check after which fewer
// GPUs are left than the job's gang; kGang when enough pass every check but the placement
// policy could not group them (a policy that keeps a job on one node).
//
// Cost, for a job asking for no node CPUs: under a model that needs empty GPUs, on a cluster
// whose devices all take it, O(devices); under room-decided admission that the model explains
// by the room (RoomBound::room_refusal), O(racks) from the cluster's room index. Otherwise
// one look at every GPU (its room first; the model is asked only when the room does not
// decide, as placement asks it). No allocation.
#pragma once

#include <array>
#include <cstdint>

#include "sim/core/queue_reason.h"
#include "sim/core/sharing_model.h"
#include "sim/state/cluster.h"
#include "sim/state/job_table.h"

namespace gpumux {

// GPUs counted per reason, and those passing every check.
struct BlockedTally {
  std::array<std::int64_t, kQueueReasonCount> refused{};
  std::int64_t passing = 0;
};

// The first reason, in QueueReason's order, after which fewer than `gang` of `total` GPUs are
// left; kGang when tally.passing >= gang.
QueueReason first_binding_reason(const BlockedTally& tally, std::int64_t total, int gang);

// Whether a GPU admits one job as placement sees it (available, room, then the model), and when
// it does not, why. What depends on the job alone is asked of the model once.
class GpuRefusals {
 public:
  GpuRefusals(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
              const JobSpec& job);
  // Whether GPU g takes the job; when not, the reason in `why`.
  bool takes(GpuIndex g, QueueReason& why);

 private:
  const Cluster& cluster_;
  const SharingModel& model_;
  GpuViewBuilder& views_;
  const JobSpec& job_;
  bool empty_only_;              // SharingModel::requires_empty_gpu
  const RoomBound* room_bound_;  // the model's, or null
  double need_;                  // RoomBound::job_need, or -kUnboundedRoom without a bound
  bool room_decides_;            // RoomBound::room_decides_admission_for(job)
};

// The reason for a gang that the topology policies (first-fit, best-fit, spread) would place
// anywhere on the cluster, across nodes and racks, once enough GPUs pass every check.
// Precondition: job.gpus >= 1 and the cluster is not pooled.
QueueReason topology_blocked_reason(const Cluster& cluster, const SharingModel& model,
                                    GpuViewBuilder& views, const JobSpec& job);

}  // namespace gpumux
