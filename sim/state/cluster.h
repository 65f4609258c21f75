// Cluster state: nodes, their GPUs, which jobs sit on each GPU, and an index of empty GPUs.
// A pooled cluster (sim/state/pool.h) is one node whose jobs hold amounts of the pool, not GPUs: its
// GPUs exist (for counts and per-GPU outputs) but nobody is placed on them.
//
// Every GPU of a node has the node's device type. Per-GPU resident lists are reserved up front
// so that placing and removing jobs does not allocate in steady state.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/device.h"
#include "sim/state/node_buckets.h"
#include "sim/state/node_change_log.h"
#include "sim/state/node_load_order.h"
#include "sim/state/pool.h"
#include "sim/state/room_class_index.h"
#include "sim/core/sharing_model.h"
#include "sim/state/topology.h"
#include "sim/base/units.h"

namespace gpumux {

using JobSlot = std::uint32_t;  // index of an active job in the engine's job table

// NodeSpec::device of a node without GPUs (a CPU pool's node, node_groups gpus_per_node 0).
inline constexpr int kNoDeviceIndex = -1;

struct NodeSpec {
  std::string name;
  int device = 0;  // index into the cluster's device list; kNoDeviceIndex when gpus is 0
  int gpus = 0;
  int rack = 0;
  bool nvlink = false;
  // CPU cores of the node (node_groups `cpus`, openb `cpu_milli`), >= 0; absent: not tracked
  // (the node never runs out of CPUs).
  std::optional<double> cpus = std::nullopt;
};

// A job's CPU cores in hundredths of a core (JobSpec::cpus rounded to the nearest hundredth,
// ties to even, as the pool counts them).
std::int64_t job_cpu_hundredths(const JobSpec& job);

struct GpuState {
  NodeIndex node = 0;
  int device = 0;
  std::vector<JobSlot> residents;  // in placement order
  std::vector<double> rates;       // rate of each resident on this GPU, same order
  // The slot each resident holds on this GPU, same order (SlotLayout::choose_slot: a MIG
  // instance; 0 for models without slots). Fixed while the resident stays.
  std::vector<int> slots;
  // Whether each resident asked for memory since the engine last checked the GPU for out of
  // memory (GpuView::resident_asked), same order: set when it is placed or its use grows.
  std::vector<std::uint8_t> asked;
  int index_in_node = 0;  // position of the GPU within its node (0-based)
  // Upper bound on what the GPU can still take (RoomBound::gpu_room); set with set_room.
  double room = kUnboundedRoom;
  MemoryMiB memory_used;
  GpuLoad load;
  bool available = true;       // false while recovering from a fault or draining: no new jobs
  int layout = 0;              // configuration index (SlotLayout::layout_count)
  bool recovering = false;     // in fault recovery
  bool draining = false;       // waiting to empty for a reconfiguration
  bool reconfiguring = false;  // empty, paying the reconfiguration delay
  bool resplitting = false;    // re-split in place, its new instances being made (no new jobs)
  int pending_layout = 0;
  Time pending_delay;
  Time drain_started;
  Time last_reconfigured = Time::from_us(-(std::int64_t{1} << 62));
  // Usable for a new job under empty-GPU admission.
  bool free() const { return available && residents.empty(); }
};

class Cluster {
 public:
  // Precondition: every node with GPUs has a valid device index; racks are dense from 0. A
  // node may have no GPU (a CPU pool's node, NodeSpec::device kNoDeviceIndex): it holds CPU-only
  // jobs on its declared cores, is in no empty-GPU bucket above 0, its room is -infinity, and
  // GPU placement never picks it. (The openb list's CPU-only machines are still left out by the
  // scenario reader, so that openb clusters keep their node numbering.)
  // With `pool`: exactly one node, of pool->gpus GPUs.
  Cluster(std::vector<DeviceProfile> devices, std::vector<NodeSpec> nodes,
          std::optional<PoolSpec> pool = std::nullopt);

  // The pool (sim/state/pool.h): whether the cluster is one, its capacity and what is free now.
  bool pooled() const { return pooled_; }
  const PoolAmount& pool_capacity() const { return pool_capacity_; }
  const PoolAmount& pool_free() const { return pool_free_; }
  // Whether `amount` fits what is free now.
  bool pool_fits(const PoolAmount& amount) const {
    return amount.gpu <= pool_free_.gpu && amount.cpu <= pool_free_.cpu;
  }
  // Takes `amount` from the pool (precondition: it fits) or gives it back.
  void pool_take(const PoolAmount& amount);
  void pool_give(const PoolAmount& amount);

  // CPU capacity of clusters of nodes (NodeSpec::cpus), in hundredths of a core. A job holds
  // its cores while it runs, shared among its nodes in proportion to its GPUs there: k of its n
  // GPUs on a node hold ceil(C x k / n) of its C hundredths there (all C on one node).
  // Whether any node declares CPUs: false keeps every CPU path off (unlimited CPU).
  bool tracks_cpus() const { return tracks_cpus_; }
  std::int64_t cpu_capacity(NodeIndex n) const { return cpu_capacity_[n]; }
  std::int64_t cpu_free(NodeIndex n) const { return cpu_free_[n]; }
  // The most of a gang of `gang` GPUs asking for `cpu` hundredths (> 0) whose share of the
  // cores fits what node n has free now: floor(free x gang / cpu).
  std::int64_t gpus_within_cpus(NodeIndex n, std::int64_t cpu, int gang) const;
  // Whether a gang of `gang` GPUs asking for `cpu` hundredths could ever fit by CPUs alone, on
  // an idle cluster (GPU counts and CPU capacities; devices and the sharing model aside).
  bool cpus_could_fit(std::int64_t cpu, int gang) const;
  // Takes (gives back) a job's `cpu` hundredths on the nodes of `gpus`, shared as above.
  // Precondition of take: the shares fit (placement checked them).
  void take_cpus(std::span<const GpuIndex> gpus, std::int64_t cpu);
  void give_cpus(std::span<const GpuIndex> gpus, std::int64_t cpu);

  // CPU-only jobs (JobSpec::gpus 0) on a cluster of nodes hold all their cores on one node that
  // declares CPUs (NodeSpec::cpus); a node without `cpus` never takes one. Hundredths of a core.
  // Whether node n declares CPUs.
  bool declares_cpus(NodeIndex n) const { return tracks_cpus_ && nodes_[n].cpus.has_value(); }
  // The largest CPU capacity of a node that declares CPUs; -1 when none does.
  std::int64_t most_declared_cpu_capacity() const { return most_declared_capacity_; }
  // The most cores free now on one node that declares CPUs; -1 when none does. O(1).
  std::int64_t most_cpu_free() const { return tracks_cpus_ ? cpu_tree_[1] : -1; }
  // Nodes declaring CPUs with at least `cpu` (> 0) hundredths free, or nullopt when none has:
  // the lowest-index one (O(log nodes)); the one with the fewest free, lowest index on ties
  // (O(nodes)); the one with the most free, lowest index on ties (O(log nodes)).
  std::optional<NodeIndex> first_node_with_cpu(std::int64_t cpu) const;
  std::optional<NodeIndex> tightest_node_with_cpu(std::int64_t cpu) const;
  std::optional<NodeIndex> roomiest_node_with_cpu(std::int64_t cpu) const;
  // Takes (gives back) a CPU-only job's `cpu` hundredths on node n. Precondition of take: n
  // declares CPUs and has them free.
  void take_node_cpus(NodeIndex n, std::int64_t cpu);
  void give_node_cpus(NodeIndex n, std::int64_t cpu);

  // The nodes each mutator above and below changed (sim/state/node_change_log.h): residents,
  // memory in use, asked flags, rooms, availability, CPUs. A change made through the mutable
  // gpu() (rates, loads, layouts, reconfiguration and fault flags) is not recorded.
  const NodeChangeLog& changes() const { return changes_; }

  std::size_t gpu_count() const { return gpus_.size(); }
  std::size_t node_count() const { return nodes_.size(); }
  const Topology& topology() const { return topology_; }
  const std::vector<DeviceProfile>& devices() const { return devices_; }
  const NodeSpec& node(NodeIndex n) const { return nodes_[n]; }
  const GpuState& gpu(GpuIndex g) const { return gpus_[g]; }
  GpuState& gpu(GpuIndex g) { return gpus_[g]; }
  const DeviceProfile& device_of(GpuIndex g) const { return devices_[gpus_[g].device]; }
  int max_gpus_per_node() const { return max_gpus_per_node_; }

  void add_resident(GpuIndex g, JobSlot job, MemoryMiB memory, int slot = 0);
  void remove_resident(GpuIndex g, JobSlot job, MemoryMiB memory);
  // GPU `g` re-split in place: it now has `layout` and its residents hold `slots` (same order
  // and count as GpuState::residents). Residents, memory and availability are unchanged.
  void resplit(GpuIndex g, int layout, std::span<const int> slots);
  // A resident's memory in use changed from `before` to `after`.
  void change_memory(GpuIndex g, MemoryMiB before, MemoryMiB after) {
    changes_.touch(gpus_[g].node);
    gpus_[g].memory_used += after - before;
    if (load_order_.tracked()) load_order_.change(gpus_[g].node, 0, (before - after).mib());
  }
  // Flags resident `job` of GPU `g` as having asked for memory (GpuState::asked).
  void mark_asked(GpuIndex g, JobSlot job);
  // Takes a GPU out of service (fault recovery) or puts it back.
  void set_available(GpuIndex g, bool available);
  // Sets the GPU's room (RoomBound::gpu_room) and its node's.
  void set_room(GpuIndex g, double room);
  // GPU g's room while it is available, NaN while it is not (no comparison holds): placement's
  // `open_room(g) >= need` is `available && room >= need` read from one dense array, without
  // touching the GPU's state.
  double open_room(GpuIndex g) const { return open_room_[g]; }
  // The largest room among the node's available GPUs (-infinity when none is available).
  double node_room(NodeIndex n) const { return room_tree_[room_leaves_ + n]; }
  // The largest room of any available GPU of the cluster.
  double max_room() const { return room_tree_[1]; }
  // Under room-decided admission (RoomBound::room_decides_admission: a GPU admits a job iff
  // open_room >= the job's need): for one need, every node's and rack's count of such GPUs, the
  // lowest-index node with at least n of them and the one with the fewest that still has n, and
  // the nodes by count (sim/state/room_class_index.h; valid until the next room_counts). O(max GPUs
  // per node x nodes / 64) per question for a need among the last few asked, plus one pass over
  // the GPUs for a need new to the index (a cache, hence mutable).
  RoomCounts room_counts(double need) const {
    return RoomCounts(room_classes_, room_classes_.class_for(need, open_room_));
  }

  // Nodes by load, least loaded first (sim/state/node_load_order.h: fewest residents, then most free
  // memory, then lowest index), for spread placement. Built on the first call (O(GPUs)), then
  // kept in step by add_resident, remove_resident and change_memory at O(log nodes) each (a
  // cache, hence mutable): clusters never placed by spread pay nothing.
  const NodeLoadOrder& nodes_by_load() const;
  // The least-loaded node (in that order) with at least n (>= 1) empty GPUs, from the order
  // split by empty GPUs (NodeLoadOrder::split_by_empty), built on the first call and then kept
  // in step as the empty-GPU index is. O(max GPUs per node).
  std::optional<NodeIndex> least_loaded_node_with_empty(int n) const;

  // The free-GPU index (available GPUs with no resident), kept per node.
  int empty_gpus(NodeIndex n) const { return empty_per_node_[n]; }
  std::size_t empty_gpus_total() const { return empty_total_; }
  // GPUs out of service now (GpuState::available false: recovering, draining, reconfiguring).
  std::size_t unavailable_gpus_total() const { return unavailable_total_; }
  // Lowest-index node with at least `n` empty GPUs.
  std::optional<NodeIndex> first_node_with_empty(int n) const;
  // The node with the fewest empty GPUs that still has at least `n` (lowest index on ties).
  std::optional<NodeIndex> tightest_node_with_empty(int n) const;
  // Empty GPUs of the nodes of rack `r` (Topology racks).
  int empty_gpus_in_rack(int r) const { return empty_per_rack_[static_cast<std::size_t>(r)]; }
  // Calls visit(node) for each node with exactly `k` empty GPUs (1 <= k <= max_gpus_per_node),
  // in increasing node order, until visit returns false. Without allocation.
  template <typename Visit>
  void visit_nodes_with_empty(int k, Visit&& visit) const {
    empty_buckets_.visit(k, std::forward<Visit>(visit));
  }
  // Calls visit(node) for each node with at least `n` (>= 1) empty GPUs, in increasing node
  // order, until visit returns false. Without allocation.
  template <typename Visit>
  void visit_nodes_with_empty_at_least(int n, Visit&& visit) const {
    empty_buckets_.visit_at_least(n, std::forward<Visit>(visit));
  }

 private:
  void count_free(const GpuState& gpu, int delta);

  std::vector<DeviceProfile> devices_;
  std::vector<NodeSpec> nodes_;
  Topology topology_;
  std::vector<GpuState> gpus_;
  void update_node_room(NodeIndex n);
  std::vector<int> empty_per_node_;
  std::vector<double> open_room_;  // per GPU: room when available, NaN when not (open_room)
  void set_open_room(GpuIndex g, double open);  // keeps room_classes_ in step
  mutable RoomClassIndex room_classes_;
  std::vector<int> empty_per_rack_;
  // Max tree over node rooms: leaves at room_leaves_ + node, parents at i / 2, root at 1.
  std::size_t room_leaves_ = 1;
  std::vector<double> room_tree_;
  std::size_t empty_total_ = 0;
  std::size_t unavailable_total_ = 0;
  int max_gpus_per_node_ = 0;
  // Nodes by their empty GPUs (sim/state/node_buckets.h): a node for a gang of n is a scan of at
  // most max_gpus_per_node bitmaps, without allocation.
  NodeBuckets empty_buckets_;
  mutable NodeLoadOrder load_order_;  // nodes_by_load and its split; tracked once asked for
  void track_loads() const;           // starts load_order_ tracking the nodes' loads
  void change_cpus(std::span<const GpuIndex> gpus, std::int64_t cpu, int sign);
  bool tracks_cpus_ = false;
  std::vector<std::int64_t> cpu_capacity_;  // per node, hundredths; kUntrackedCpu when absent
  std::vector<std::int64_t> cpu_free_;
  // max_cpus_with_gpus_[k]: the largest CPU capacity among nodes of at least k GPUs.
  std::vector<std::int64_t> max_cpus_with_gpus_;
  std::vector<int> gpus_on_node_;  // take/give scratch: the job's GPUs per node, zero between
  // Max tree over the free cores of nodes that declare CPUs (-1 for the others): leaves at
  // cpu_leaves_ + node, parents at i / 2, root at 1. Kept only when tracks_cpus_.
  void set_cpu_free(NodeIndex n, std::int64_t free);
  std::size_t cpu_leaves_ = 1;
  std::vector<std::int64_t> cpu_tree_;
  std::int64_t most_declared_capacity_ = -1;
  NodeChangeLog changes_;
  bool pooled_ = false;
  PoolAmount pool_capacity_;
  PoolAmount pool_free_;
};

}  // namespace gpumux
