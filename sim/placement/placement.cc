#include "sim/placement/placement.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <utility>

namespace gpumux {

namespace {

class TopologyPlacement : public PlacementPolicy {
 public:
  explicit TopologyPlacement(TopologyFit mode) : mode_(mode) { slot_answers_.reserve(kMaxSlotAnswers); }

  std::string_view name() const override {
    switch (mode_) {
      case TopologyFit::kFirst:
        return "first-fit";
      case TopologyFit::kBest:
        return "best-fit";
      case TopologyFit::kSpread:
        return "spread";
    }
    return "";
  }

  bool place(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
             const JobSpec& job, std::vector<GpuIndex>& out) override {
    out.clear();
    const int n = job.gpus;
    gang_ = n;
    // On a cluster with node CPUs, a node can take only the GPUs whose share of the job's cores
    // it has free (Cluster::gpus_within_cpus); 0: CPUs do not bind.
    job_cpu_ = cluster.tracks_cpus() ? job_cpu_hundredths(job) : 0;
    const bool empty_only = model.requires_empty_gpu();
    // A GPU (or node) whose room is below the job's need cannot admit it (SharingModel contract).
    need_ = model.has_room_bound() ? model.job_need(job) : -kUnboundedRoom;
    room_decides_ = model.has_room_bound() && model.room_decides_admission_for(job);
    by_slots_ = !room_decides_ && model.admission_by_slots();
    slot_answers_.clear();
    if (cluster.max_room() < need_) return false;  // no available GPU has the room
    // Under empty-GPU admission the answer depends only on the device type: ask once per type.
    bool all_devices_ok = true;
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
    if (mode_ == TopologyFit::kSpread) {
      return place_spread(cluster, model, views, job, empty_only && all_devices_ok, empty_only,
                          out);
    }
    // A job asking for node CPUs, where an index counts usable GPUs (empty-GPU or room
    // index): the nodes the index says have n, in index order, capped by their free cores
    // (first-fit takes the first that holds the gang, best-fit the one with the fewest). A gang
    // that no node holds within its cores takes the counting path below.
    if (job_cpu_ > 0 && n <= cluster.max_gpus_per_node()) {
      std::optional<NodeIndex> node;
      if (empty_only && all_devices_ok) {
        node = node_within_cpus(cluster, EmptyCounts{cluster}, n);
      } else if (room_decides_ && !empty_only) {
        node = node_within_cpus(cluster, cluster.room_counts(need_), n);
      }
      if (node) {
        take_from_node(cluster, model, views, job, *node, n, empty_only, out);
        return true;
      }
    }
    // The empty-GPU index answers first-fit and best-fit directly for jobs asking for no node
    // CPUs (it knows no cores).
    const bool indexed = empty_only && all_devices_ok && job_cpu_ == 0;
    if (indexed) {
      if (n <= cluster.max_gpus_per_node()) {
        auto node = mode_ == TopologyFit::kFirst ? cluster.first_node_with_empty(n)
                                             : cluster.tightest_node_with_empty(n);
        if (node) {
          take_from_node(cluster, model, views, job, *node, n, empty_only, out);
          return true;
        }
      }
      return place_across_nodes_indexed(cluster, model, views, job, EmptyCounts{cluster},
                                        /*empty_only=*/true, out);
    }
    // Under room-decided admission the cluster's room index answers first-fit and best-fit
    // (the same nodes the count below would choose): a gang that one node holds from the nodes
    // bucketed by count, one that none holds from the per-rack counts and the buckets. Jobs
    // asking for node CPUs that no node holds take the count.
    if (room_decides_ && !empty_only && job_cpu_ == 0) {
      const RoomCounts counts = cluster.room_counts(need_);
      if (n <= cluster.max_gpus_per_node()) {
        const auto node = mode_ == TopologyFit::kFirst ? counts.first_node(n) : counts.tightest_node(n);
        if (node) {
          take_from_node(cluster, model, views, job, *node, n, empty_only, out);
          return true;
        }
      }
      return place_across_nodes_indexed(cluster, model, views, job, counts, empty_only, out);
    }
    // First-fit takes the lowest node with n usable GPUs: counting may stop there. Best-fit
    // takes the node with the fewest usable GPUs that still holds n, the lowest on ties: a node
    // with exactly n is that node, and counting may stop there too.
    // With node CPUs the count is capped after it is complete, so it cannot stop early.
    const bool one_node = n <= cluster.max_gpus_per_node() && job_cpu_ == 0;
    count_usable(cluster, model, views, job, empty_only,
                 one_node && mode_ == TopologyFit::kFirst ? n : 0,
                 one_node && mode_ == TopologyFit::kBest ? n : 0);
    if (job_cpu_ > 0) cap_by_cpus(cluster);
    if (n <= cluster.max_gpus_per_node()) {
      if (auto node = choose(usable_, n)) {
        take_from_node(cluster, model, views, job, *node, n, empty_only, out);
        return true;
      }
    }
    // No single node: one rack, then the whole cluster.
    return place_across_nodes(cluster, model, views, job, empty_only, out);
  }

 private:
  // A gang that no single node holds, from the counts in usable_ (every node's): the rack that
  // holds it (chosen as nodes are), else the whole cluster; nodes with the most usable GPUs
  // first, so that it spans as few as possible. False when the cluster has too few.
  bool place_across_nodes(const Cluster& cluster, const SharingModel& model,
                          GpuViewBuilder& views, const JobSpec& job, bool empty_only,
                          std::vector<GpuIndex>& out) {
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

 public:
  std::optional<NodeIndex> place_cpu_only(const Cluster& cluster, std::int64_t cpu) override {
    switch (mode_) {
      case TopologyFit::kFirst:
        return cluster.first_node_with_cpu(cpu);
      case TopologyFit::kBest:
        return cluster.tightest_node_with_cpu(cpu);
      case TopologyFit::kSpread:
        return cluster.roomiest_node_with_cpu(cpu);
    }
    return std::nullopt;
  }

 private:
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

  // Spread: the nodes walked from the least loaded (Cluster::nodes_by_load) to the first that
  // holds the gang, unless an index says that none does (under exclusive GPUs the order split by
  // empty GPUs names it at once); a gang that none holds goes across nodes as first-fit and
  // best-fit do. `empty_indexed`: empty-GPU admission with every device admitting the job.
  bool place_spread(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                    const JobSpec& job, bool empty_indexed, bool empty_only,
                    std::vector<GpuIndex>& out) {
    const int n = job.gpus;
    const bool room_indexed = room_decides_ && !empty_only;
    bool some_node_holds = n <= cluster.max_gpus_per_node();
    if (some_node_holds && empty_indexed) {
      some_node_holds = cluster.first_node_with_empty(n).has_value();
    } else if (some_node_holds && room_indexed) {
      some_node_holds = cluster.room_counts(need_).first_node(n).has_value();
    }
    if (some_node_holds && empty_indexed && job_cpu_ == 0) {
      // Under exclusive GPUs the order split by empty GPUs names the node at once.
      const auto node = cluster.least_loaded_node_with_empty(n);
      if (!node) throw std::logic_error("placement: the empty-GPU index and load order disagree");
      take_from_node(cluster, model, views, job, *node, n, empty_only, out);
      return true;
    }
    if (some_node_holds) {
      if (auto node = least_loaded_holding(cluster, model, views, job, empty_only, n)) {
        take_from_node(cluster, model, views, job, *node, n, empty_only, out);
        return true;
      }
    }
    if (job_cpu_ == 0 && empty_indexed) {
      return place_across_nodes_indexed(cluster, model, views, job, EmptyCounts{cluster},
                                        /*empty_only=*/true, out);
    }
    if (job_cpu_ == 0 && room_indexed) {
      return place_across_nodes_indexed(cluster, model, views, job, cluster.room_counts(need_),
                                        empty_only, out);
    }
    if (!some_node_holds) {  // else the walk has counted every node
      count_usable(cluster, model, views, job, empty_only, 0, 0);
      if (job_cpu_ > 0) cap_by_cpus(cluster);
    }
    return place_across_nodes(cluster, model, views, job, empty_only, out);
  }

  // First-fit's or best-fit's node for a gang of n that one node holds, for a job asking for
  // node CPUs, from an index's counts (EmptyCounts or RoomCounts): the nodes with n usable GPUs
  // by the index, in index order, each capped by its free cores (within_cpus).
  // Visits only the nodes the index names; nullopt when none holds the gang within its cores.
  template <class Counts>
  std::optional<NodeIndex> node_within_cpus(const Cluster& cluster, const Counts& counts, int n) {
    std::optional<NodeIndex> pick;
    int pick_usable = 0;
    counts.visit_nodes_with_at_least(n, [&](NodeIndex node) {
      const int usable = within_cpus(cluster, node, counts.on_node(node));
      if (usable < n) return true;
      // The first node in index order with exactly n is the tightest: no count is below n.
      if (mode_ == TopologyFit::kFirst || usable == n) {
        pick = node;
        return false;
      }
      if (!pick || usable < pick_usable) {
        pick = node;
        pick_usable = usable;
      }
      return true;
    });
    return pick;
  }

  // Spread's node for a gang one node holds: the least-loaded node with n usable GPUs (capped
  // by its free cores), found by walking the cluster's load order (Cluster::nodes_by_load) from
  // its start; the node counting every node would choose, without the count. Each node visited
  // costs what counting it would, and its count (capped by within_cpus) goes to
  // usable_: when no node holds the gang the walk has visited every node, and usable_ is the
  // full count that the path across nodes needs.
  std::optional<NodeIndex> least_loaded_holding(const Cluster& cluster, const SharingModel& model,
                                                GpuViewBuilder& views, const JobSpec& job,
                                                bool empty_only, int n) {
    usable_.resize(cluster.node_count());  // every entry is written before it is read
    std::optional<NodeIndex> pick;
    cluster.nodes_by_load().visit([&](NodeIndex node) {
      const int usable = within_cpus(cluster, node,
                                     usable_on(cluster, model, views, job, empty_only, node));
      usable_[node] = usable;
      if (usable < n) return true;
      pick = node;
      return false;
    });
    return pick;
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

  // The index whose count is >= n: the lowest (first-fit); the one with the smallest count
  // (best-fit); the one with the largest (spread, which asks this of racks only: its node is
  // least_loaded_holding's). Ties go to the lowest index.
  std::optional<std::size_t> choose(const std::vector<int>& counts, int n) const {
    std::optional<std::size_t> pick;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] < n) continue;
      if (mode_ == TopologyFit::kFirst) return i;
      if (!pick) {
        pick = i;
      } else if (mode_ == TopologyFit::kBest) {
        if (counts[i] < counts[*pick]) pick = i;
      } else if (counts[i] > counts[*pick]) {
        pick = i;
      }
    }
    return pick;
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
    if (mode_ == TopologyFit::kBest && !empty_only) {
      std::stable_sort(candidates_.begin(), candidates_.end(), [&](GpuIndex a, GpuIndex b) {
        return cluster.gpu(a).memory_used > cluster.gpu(b).memory_used;
      });
    }
    if (mode_ == TopologyFit::kSpread && !empty_only) {
      // Least-loaded GPUs first: fewest residents, then most free memory, then lowest index
      // (a total order, so the choice is deterministic).
      std::sort(candidates_.begin(), candidates_.end(), [&](GpuIndex a, GpuIndex b) {
        const GpuState& ga = cluster.gpu(a);
        const GpuState& gb = cluster.gpu(b);
        if (ga.residents.size() != gb.residents.size()) {
          return ga.residents.size() < gb.residents.size();
        }
        const MemoryMiB free_a = cluster.device_of(a).memory - ga.memory_used;
        const MemoryMiB free_b = cluster.device_of(b).memory - gb.memory_used;
        if (free_a != free_b) return free_a > free_b;
        return a < b;
      });
    }
    out.insert(out.end(), candidates_.begin(), candidates_.begin() + count);
  }

  // Whether GPU g admits the job: its room first; the model only when the room does not decide,
  // and under admission by slots only once per class of GPU (slot_class).
  bool admits(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
              GpuIndex g, const JobSpec& job) {
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

  // Under SharingModel::admission_by_slots, the part of a GPU admission depends on: its device,
  // its layout, how many residents it holds and which slots (bits 0-23), packed in one word;
  // kNoSlotClass when it does not pack (or the residents' slots are not tracked), and the model
  // is asked.
  static constexpr std::uint64_t kNoSlotClass = ~std::uint64_t{0};
  static std::uint64_t slot_class(const GpuState& gpu) {
    if (gpu.slots.size() != gpu.residents.size() || gpu.residents.size() > 255 ||
        gpu.device < 0 || gpu.device > 0xffff || gpu.layout < 0 || gpu.layout > 0xff) {
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

  TopologyFit mode_;
  double need_ = 0.0;  // the job's need (SharingModel::job_need), -huge without a room bound
  int gang_ = 0;
  std::int64_t job_cpu_ = 0;  // the job's node CPUs in hundredths; 0 when they do not bind
  bool room_decides_ = false;  // SharingModel::room_decides_admission
  bool by_slots_ = false;      // SharingModel::admission_by_slots (and the room does not decide)
  std::vector<SlotAnswer> slot_answers_;  // this placement's answers per slot class
  std::vector<std::uint8_t> device_ok_;
  std::vector<int> usable_;
  std::vector<int> rack_usable_;
  std::vector<NodeIndex> nodes_;
  std::vector<NodeIndex> order_;
  std::vector<std::size_t> first_;  // gather_nodes' bucket starts
  std::vector<GpuIndex> candidates_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_topology_placement(TopologyFit fit) {
  return std::make_unique<TopologyPlacement>(fit);
}

}  // namespace gpumux
