// Placement policies: which GPUs a job gets. Gang jobs get all their GPUs at once or none, and
// every chosen GPU must admit the job under the sharing model.
//
// Both policies prefer the tightest group the topology offers: one node, else one rack, else
// the whole cluster (taking the nodes with the most usable GPUs first, to span few nodes).
// - first-fit: the lowest-numbered node (or rack) that can hold the job;
// - best-fit: the node (or rack) with the fewest usable GPUs that still holds it, and within a
//   node the GPUs already carrying the most memory, leaving whole nodes free for large gangs;
// - spread: the least-loaded node that holds it (fewest resident jobs, then most free memory;
//   the rack with the most usable GPUs), and within a node the GPUs with the fewest residents,
//   then the most free memory: sharing models then co-locate only when they must, so a
//   comparison of sharing against exclusive is not also a comparison of packing. Ties go to the
//   lowest index.
//
// On a cluster whose nodes declare CPUs (Cluster::tracks_cpus), a node counts only the usable
// GPUs whose share of the job's cores it has free: a job that fits by GPUs waits when its node
// lacks the cores. Best-fit then ranks nodes by these counts (the tightest in either resource).
// A CPU-only job takes cores on one such node and no GPU (PlacementPolicy::place_cpu_only).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/queue_reason.h"
#include "sim/core/sharing_model.h"
#include "sim/placement/blocked_reason.h"
#include "sim/state/cluster.h"
#include "sim/state/job_table.h"

namespace gpumux {

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::string_view name() const = 0;
  // Chooses job.gpus GPUs that all admit `job`, writing them to `out`; returns false (and leaves
  // `out` empty) when no such group exists now. Not const: policies keep scratch buffers.
  // Precondition: under a model with a room bound, every GPU's room is current
  // (Cluster::set_room with RoomBound::gpu_room, as the engine keeps it): placement skips
  // GPUs by their room and, when the room decides admission, admits by it alone.
  virtual bool place(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                     const JobSpec& job, std::vector<GpuIndex>& out) = 0;
  // Why no group exists now (sim/placement/blocked_reason.h), to explain a blocked queue.
  // Precondition: place() would return false for `job` now. The default suits policies that
  // place a gang across nodes and racks once enough GPUs pass every check (the topology ones).
  virtual QueueReason blocked_reason(const Cluster& cluster, const SharingModel& model,
                                     GpuViewBuilder& views, const JobSpec& job) {
    return topology_blocked_reason(cluster, model, views, job);
  }
  // True when place() and surely_refused() read a job only through its request kind
  // (sim/placement/request_kind.h) under models with admission by key, and a refusal changes
  // nothing later decisions read: a queue may then ask once per kind per cluster state.
  virtual bool places_by_kind() const { return false; }
  // True only when place() would return false for `job` now, answered without a whole look
  // where the policy can (sim/placement/refused_kinds.h); false says nothing. The default
  // knows nothing.
  virtual bool surely_refused(const Cluster& /*cluster*/, const SharingModel& /*model*/,
                              GpuViewBuilder& /*views*/, const JobSpec& /*job*/) {
    return false;
  }
  // The node a CPU-only job (JobSpec::gpus 0) asking for `cpu` hundredths of a core (> 0)
  // starts on now, among the nodes that declare CPUs (Cluster::declares_cpus), or nullopt when
  // none has the cores free. No GPU and no sharing model take part. By default the node with
  // the fewest free cores that fit (best-fit; the share-aware policies keep it): first-fit
  // takes the lowest-index node with the cores, spread the node with the most free cores.
  // Ties go to the lowest index.
  virtual std::optional<NodeIndex> place_cpu_only(const Cluster& cluster, std::int64_t cpu) {
    return cluster.tightest_node_with_cpu(cpu);
  }
};

// The topology policies, on their shared machinery (topology_placement.h): first-fit (the
// lowest-index GPUs that take the job) and best-fit (those leaving the least room), in
// placement.cc; spread (the least-loaded node), in spread_placement.cc. Their names are entries
// of the placement table (registry.h), the only list of placement names.
std::unique_ptr<PlacementPolicy> make_first_fit_placement();
std::unique_ptr<PlacementPolicy> make_best_fit_placement();
std::unique_ptr<PlacementPolicy> make_spread_placement();

}  // namespace gpumux
