// The topology policies' shared machinery (placement.h: first-fit and best-fit in
// placement.cc, spread in spread_placement.cc): which GPUs of a node admit a job, the usable
// counts per node and rack from the cluster's indexes, a gang across nodes, and taking GPUs from
// a node. A policy decides only what differs: its node (or rack) among those that hold the
// job (choose) and the order of a node's admitting GPUs (order_candidates).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "sim/placement/placement.h"

namespace gpumux {

class TopologyPlacement : public PlacementPolicy {
 public:
  TopologyPlacement() { slot_answers_.reserve(kMaxSlotAnswers); }

 protected:
  // The checks every topology placement starts with: records the job's need, whether the room
  // decides, its node CPUs, and under empty-GPU admission which devices admit it
  // (`all_devices_ok`: every one). False when no group can hold the job now (`out` is empty).
  bool begin(const Cluster& cluster, const SharingModel& model, const JobSpec& job,
             std::vector<GpuIndex>& out, bool& empty_only, bool& all_devices_ok) {
    out.clear();
    const int n = job.gpus;
    gang_ = n;
    // On a cluster with node CPUs, a node can take only the GPUs whose share of the job's cores
    // it has free (Cluster::gpus_within_cpus); 0: CPUs do not bind.
    job_cpu_ = cluster.tracks_cpus() ? job_cpu_hundredths(job) : 0;
    empty_only = model.requires_empty_gpu();
    // A GPU (or node) whose room is below the job's need cannot admit it (RoomBound contract).
    const RoomBound* room = model.room_bound();
    need_ = job_need(model, job);
    room_decides_ = room && room->room_decides_admission_for(job);
    const SlotLayout* slots = model.slot_layout();
    by_slots_ = !room_decides_ && slots && slots->admission_by_slots();
    slot_answers_.clear();
    if (cluster.max_room() < need_) return false;  // no available GPU has the room
    // Under empty-GPU admission the answer depends only on the device type: ask once per type.
    all_devices_ok = true;
    if (empty_only) {
      device_ok_.assign(cluster.devices().size(), 0);
      for (std::size_t d = 0; d < cluster.devices().size(); ++d) {
        const GpuView empty{cluster.devices()[d], {}, MemoryMiB(0)};
        device_ok_[d] = model.admits(empty, job) ? 1 : 0;
        all_devices_ok = all_devices_ok && device_ok_[d];
      }
    }
    if (empty_only && all_devices_ok && cluster.empty_gpus_total() < static_cast<std::size_t>(n)) {
      return false;
    }
    return true;
  }

  // The index whose count is >= n that the policy takes (a node's or a rack's usable GPUs),
  // or nullopt when none is.
  virtual std::optional<std::size_t> choose(const std::vector<int>& counts, int n) const = 0;
  // Orders candidates_ (a node's admitting GPUs, by index) before the first ones are taken;
  // asked only where GPUs are shared (not under empty-GPU admission). By default index order.
  virtual void order_candidates(const Cluster& /*cluster*/) {}

  // A gang that no single node holds, from the counts in usable_ (every node's): the rack that
  // holds it (chosen as nodes are), else the whole cluster; nodes with the most usable GPUs
  // first, so that it spans as few as possible. False when the cluster has too few.
  bool place_across_nodes(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                          const JobSpec& job, bool empty_only, std::vector<GpuIndex>& out) {
    const int n = job.gpus;
    const Topology& topo = cluster.topology();
    rack_usable_.assign(topo.rack_count(), 0);
    for (NodeIndex node = 0; node < cluster.node_count(); ++node) {
      rack_usable_[topo.rack_of_node(node)] += usable_[node];
    }
    if (auto rack = choose(rack_usable_, n)) {
      gather_nodes(topo.nodes_in_rack(static_cast<int>(*rack)));
    } else {
      long total = 0;
      for (int u : rack_usable_) total += u;
      if (total < n) return false;
      nodes_.clear();
      for (NodeIndex node = 0; node < cluster.node_count(); ++node) nodes_.push_back(node);
      gather_nodes(nodes_);
    }
    int left = n;
    for (NodeIndex node : order_) {
      const int take = std::min(left, usable_[node]);
      if (take == 0) continue;
      take_from_node(cluster, model, views, job, node, take, empty_only, out);
      left -= take;
      if (left == 0) break;
    }
    return true;
  }

  // The empty-GPU index's counts (usable = empty), in the shape of RoomCounts.
  struct EmptyCounts {
    const Cluster& cluster;
    int on_node(NodeIndex n) const { return cluster.empty_gpus(n); }
    int in_rack(int r) const { return cluster.empty_gpus_in_rack(r); }
    template <typename Visit>
    void visit_nodes_with(int k, Visit&& f) const {
      cluster.visit_nodes_with_empty(k, std::forward<Visit>(f));
    }
    template <typename Visit>
    void visit_nodes_with_at_least(int n, Visit&& f) const {
      cluster.visit_nodes_with_empty_at_least(n, std::forward<Visit>(f));
    }
  };

  // place_across_nodes where an index already holds every node's usable count (`counts`:
  // EmptyCounts under empty-GPU admission with every device admitting the job, RoomCounts under
  // room-decided admission; no node CPUs, not spread): the same choice from per-rack counts and
  // the nodes bucketed by count, without a pass over every node. False when the cluster has
  // too few usable GPUs.
  template <class Counts>
  bool place_across_nodes_indexed(const Cluster& cluster, const SharingModel& model,
                                  GpuViewBuilder& views, const JobSpec& job, const Counts& counts,
                                  bool empty_only, std::vector<GpuIndex>& out) {
    const int n = job.gpus;
    const Topology& topo = cluster.topology();
    rack_usable_.resize(topo.rack_count());
    for (std::size_t r = 0; r < rack_usable_.size(); ++r) {
      rack_usable_[r] = counts.in_rack(static_cast<int>(r));
    }
    if (auto rack = choose(rack_usable_, n)) {
      // Only the rack's entries of usable_ are written, and only they are read below.
      usable_.resize(cluster.node_count());
      const auto& rack_nodes = topo.nodes_in_rack(static_cast<int>(*rack));
      for (NodeIndex node : rack_nodes) usable_[node] = counts.on_node(node);
      gather_nodes(rack_nodes);
      int left = n;
      for (NodeIndex node : order_) {
        const int take = std::min(left, usable_[node]);
        if (take == 0) continue;
        take_from_node(cluster, model, views, job, node, take, empty_only, out);
        left -= take;
        if (left == 0) break;
      }
      return true;
    }
    long total = 0;
    for (int u : rack_usable_) total += u;
    if (total < n) return false;
    // The whole cluster: nodes by usable GPUs, most first, then by index (gather_nodes' order),
    // read straight from the buckets.
    int left = n;
    for (int k = cluster.max_gpus_per_node(); k >= 1 && left > 0; --k) {
      counts.visit_nodes_with(k, [&](NodeIndex node) {
        const int take = std::min(left, k);
        take_from_node(cluster, model, views, job, node, take, empty_only, out);
        left -= take;
        return left > 0;
      });
    }
    return true;
  }

  // usable_[node] = GPUs of the node that admit the job. With stop_at > 0, stops after the
  // first node with at least stop_at usable GPUs; with stop_exactly > 0, after the first with
  // exactly that many (later nodes stay 0).
  void count_usable(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                    const JobSpec& job, bool empty_only, int stop_at, int stop_exactly) {
    usable_.assign(cluster.node_count(), 0);
    for (NodeIndex node = 0; node < cluster.node_count(); ++node) {
      if (node > 0 && ((stop_at > 0 && usable_[node - 1] >= stop_at) ||
                       (stop_exactly > 0 && usable_[node - 1] == stop_exactly))) {
        break;
      }
      usable_[node] = usable_on(cluster, model, views, job, empty_only, node);
    }
  }

  // GPUs of `node` that admit the job (before any cap by node CPUs).
  int usable_on(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                const JobSpec& job, bool empty_only, NodeIndex node) {
    if (empty_only) {
      // A node without GPUs has no device to look up.
      const int empty = cluster.empty_gpus(node);
      return empty > 0 && device_ok_[cluster.node(node).device] ? empty : 0;
    }
    if (cluster.node_room(node) < need_) return 0;
    const GpuIndex first = cluster.topology().first_gpu(node);
    const int gpus = cluster.node(node).gpus;
    int usable = 0;
    if (room_decides_) {
      for (int i = 0; i < gpus; ++i) usable += cluster.open_room(first + i) >= need_;
      return usable;
    }
    for (int i = 0; i < gpus; ++i) usable += admits(cluster, model, views, first + i, job);
    return usable;
  }

  // Caps each node's usable GPUs at those whose share of the job's cores it has free
  // (Cluster::gpus_within_cpus). A pass of its own after a full count, so that the counting
  // loop stays as it is for jobs that ask for no node CPUs.
  void cap_by_cpus(const Cluster& cluster) {
    for (NodeIndex node = 0; node < cluster.node_count(); ++node) {
      usable_[node] = within_cpus(cluster, node, usable_[node]);
    }
  }

  // `usable` GPUs of `node` capped at those whose share of the job's cores the node has free
  // (Cluster::gpus_within_cpus); unchanged when the job asks for no node CPUs.
  int within_cpus(const Cluster& cluster, NodeIndex node, int usable) const {
    if (job_cpu_ == 0 || usable == 0) return usable;
    return static_cast<int>(
        std::min<std::int64_t>(usable, cluster.gpus_within_cpus(node, job_cpu_, gang_)));
  }

  // Orders candidate nodes by usable GPUs, most first, so a gang spans as few nodes as possible;
  // equal counts keep their order in `nodes`. A counting sort (counts are at most a node's GPU
  // count): the same order as a stable sort, in O(nodes) rather than O(nodes log nodes), which
  // mattered for gangs spanning nodes on a 1,213-node cluster.
  void gather_nodes(const std::vector<NodeIndex>& nodes) {
    int most = 0;
    for (NodeIndex node : nodes) most = std::max(most, usable_[node]);
    // first_[k]: where the nodes with most - k usable GPUs begin in order_.
    first_.assign(static_cast<std::size_t>(most) + 2, 0);
    for (NodeIndex node : nodes) ++first_[static_cast<std::size_t>(most - usable_[node]) + 1];
    for (std::size_t k = 1; k < first_.size(); ++k) first_[k] += first_[k - 1];
    order_.resize(nodes.size());
    for (NodeIndex node : nodes) {
      order_[first_[static_cast<std::size_t>(most - usable_[node])]++] = node;
    }
  }

  void take_from_node(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                      const JobSpec& job, NodeIndex node, int count, bool empty_only,
                      std::vector<GpuIndex>& out) {
    const GpuIndex first = cluster.topology().first_gpu(node);
    candidates_.clear();
    for (int i = 0; i < cluster.node(node).gpus; ++i) {
      const GpuIndex g = first + i;
      const bool ok = empty_only ? cluster.gpu(g).free() : admits(cluster, model, views, g, job);
      if (ok) candidates_.push_back(g);
    }
    if (!empty_only) order_candidates(cluster);
    out.insert(out.end(), candidates_.begin(), candidates_.begin() + count);
  }

  // Whether GPU g admits the job: its room first; the model only when the room does not decide,
  // and under admission by slots only once per class of GPU (slot_class).
  bool admits(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views, GpuIndex g,
              const JobSpec& job) {
    if (!(cluster.open_room(g) >= need_)) return false;  // unavailable, or too little room
    if (room_decides_) return true;
    const GpuState& gpu = cluster.gpu(g);
    if (!by_slots_) return model.admits(views.view(g), job);
    const std::uint64_t key = slot_class(gpu);
    if (key == kNoSlotClass) return model.admits(views.view(g), job);
    for (const SlotAnswer& a : slot_answers_) {
      if (a.key == key) return a.admits;
    }
    const bool ok = model.admits(views.view(g), job);
    if (slot_answers_.size() < kMaxSlotAnswers) slot_answers_.push_back({key, ok});
    return ok;
  }

  // Under SlotLayout::admission_by_slots, the part of a GPU admission depends on: its device,
  // its layout, how many residents it holds and which slots (bits 0-23), packed in one word;
  // kNoSlotClass when it does not pack (or the residents' slots are not tracked), and the model
  // is asked.
  static constexpr std::uint64_t kNoSlotClass = ~std::uint64_t{0};
  static std::uint64_t slot_class(const GpuState& gpu) {
    if (gpu.slots.size() != gpu.residents.size() || gpu.residents.size() > 255 || gpu.device < 0 ||
        gpu.device > 0xffff || gpu.layout < 0 || gpu.layout > 0xff) {
      return kNoSlotClass;
    }
    std::uint64_t held = 0;
    for (int slot : gpu.slots) {
      if (slot < 0 || slot >= 24) return kNoSlotClass;
      held |= std::uint64_t{1} << slot;
    }
    return static_cast<std::uint64_t>(gpu.device) << 48 |
           static_cast<std::uint64_t>(gpu.layout) << 40 |
           static_cast<std::uint64_t>(gpu.residents.size()) << 32 | held;
  }
  struct SlotAnswer {
    std::uint64_t key = 0;
    bool admits = false;
  };
  // Distinct classes seen in one placement are few (device types x layouts x held-slot sets);
  // past this many, further classes are asked per GPU (a bounded linear search, no allocation
  // after the first placements).
  static constexpr std::size_t kMaxSlotAnswers = 64;

  double need_ = 0.0;  // the job's need (RoomBound::job_need), -huge without a room bound
  int gang_ = 0;
  std::int64_t job_cpu_ = 0;   // the job's node CPUs in hundredths; 0 when they do not bind
  bool room_decides_ = false;  // RoomBound::room_decides_admission
  bool by_slots_ = false;      // SlotLayout::admission_by_slots (and the room does not decide)
  std::vector<SlotAnswer> slot_answers_;  // this placement's answers per slot class
  std::vector<std::uint8_t> device_ok_;
  std::vector<int> usable_;
  std::vector<int> rack_usable_;
  std::vector<NodeIndex> nodes_;
  std::vector<NodeIndex> order_;
  std::vector<std::size_t> first_;  // gather_nodes' bucket starts
  std::vector<GpuIndex> candidates_;
};

}  // namespace gpumux
