#include "sim/placement/placement.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "sim/placement/topology_placement.h"

namespace gpumux {

namespace {

// First-fit and best-fit: the tightest group the topology offers, from the lowest-index node
// (or rack) that holds the job, or the one with the fewest usable GPUs that still holds it.
class FitPlacement final : public TopologyPlacement {
 public:
  explicit FitPlacement(bool best) : best_(best) {}

  std::string_view name() const override { return best_ ? "best-fit" : "first-fit"; }

  bool place(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
             const JobSpec& job, std::vector<GpuIndex>& out) override {
    bool empty_only = false;
    bool all_devices_ok = true;
    if (!begin(cluster, model, job, out, empty_only, all_devices_ok)) return false;
    const int n = job.gpus;
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
        auto node = !best_ ? cluster.first_node_with_empty(n) : cluster.tightest_node_with_empty(n);
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
        const auto node = !best_ ? counts.first_node(n) : counts.tightest_node(n);
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
    count_usable(cluster, model, views, job, empty_only, one_node && !best_ ? n : 0,
                 one_node && best_ ? n : 0);
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

  std::optional<NodeIndex> place_cpu_only(const Cluster& cluster, std::int64_t cpu) override {
    return best_ ? cluster.tightest_node_with_cpu(cpu) : cluster.first_node_with_cpu(cpu);
  }

 private:
  // The lowest index whose count is >= n (first-fit), or the one with the smallest such count
  // (best-fit). Ties go to the lowest index.
  std::optional<std::size_t> choose(const std::vector<int>& counts, int n) const override {
    std::optional<std::size_t> pick;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] < n) continue;
      if (!best_) return i;
      if (!pick || counts[i] < counts[*pick]) pick = i;
    }
    return pick;
  }

  // Best-fit: the GPUs already carrying the most memory first (stable: then by index).
  void order_candidates(const Cluster& cluster) override {
    if (!best_) return;
    std::stable_sort(candidates_.begin(), candidates_.end(), [&](GpuIndex a, GpuIndex b) {
      return cluster.gpu(a).memory_used > cluster.gpu(b).memory_used;
    });
  }

  // The node for a gang of n that one node holds, for a job asking for
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
      if (!best_ || usable == n) {
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

  bool best_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_first_fit_placement() {
  return std::make_unique<FitPlacement>(false);
}

std::unique_ptr<PlacementPolicy> make_best_fit_placement() {
  return std::make_unique<FitPlacement>(true);
}

}  // namespace gpumux
