#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>

#include "sim/placement/placement.h"
#include "sim/placement/topology_placement.h"

namespace gpumux {

namespace {

// Spread: the least-loaded node that holds the job (fewest resident jobs, then most free memory;
// the rack with the most usable GPUs), and within a node the GPUs with the fewest residents,
// then the most free memory (placement.h).
class SpreadPlacement final : public TopologyPlacement {
 public:
  std::string_view name() const override { return "spread"; }

  // Spread: the nodes walked from the least loaded (Cluster::nodes_by_load) to the first that
  // holds the gang, unless an index says that none does (under exclusive GPUs the order split by
  // empty GPUs names it at once); a gang that none holds goes across nodes as first-fit and
  // best-fit do. `empty_indexed`: empty-GPU admission with every device admitting the job.
  bool place(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
             const JobSpec& job, std::vector<GpuIndex>& out) override {
    bool empty_only = false;
    bool all_devices_ok = true;
    if (!begin(cluster, model, job, out, empty_only, all_devices_ok)) return false;
    const bool empty_indexed = empty_only && all_devices_ok;
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

  std::optional<NodeIndex> place_cpu_only(const Cluster& cluster, std::int64_t cpu) override {
    return cluster.roomiest_node_with_cpu(cpu);
  }

 private:
  // The index with the largest count >= n (spread asks this of racks only: its node is
  // least_loaded_holding's). Ties go to the lowest index.
  std::optional<std::size_t> choose(const std::vector<int>& counts, int n) const override {
    std::optional<std::size_t> pick;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] < n) continue;
      if (!pick || counts[i] > counts[*pick]) pick = i;
    }
    return pick;
  }

  void order_candidates(const Cluster& cluster) override {
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
      const int usable =
          within_cpus(cluster, node, usable_on(cluster, model, views, job, empty_only, node));
      usable_[node] = usable;
      if (usable < n) return true;
      pick = node;
      return false;
    });
    return pick;
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_spread_placement() {
  return std::make_unique<SpreadPlacement>();
}

}  // namespace gpumux
