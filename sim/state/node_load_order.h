// Nodes ordered by load as spread placement ranks them (sim/placement/placement.h): fewest resident
// jobs, then most free memory, then lowest index. The cluster keeps one in step with every
// resident added or removed, every memory change and every change of a node's empty GPUs once
// spread placement has asked for it (Cluster::nodes_by_load,
// Cluster::least_loaded_node_with_empty), so that spread finds the least-loaded node that holds
// a gang without a pass over every node.
//
// Units: residents are resident entries summed over the node's GPUs (a gang with two GPUs on
// the node counts twice, as GpuState::residents does); free memory is MiB summed over the
// node's GPUs (device memory minus GpuState::memory_used, available or not).
//
// Two views, each kept only once asked for (a run pays for what its placements use):
// - the whole order (keep_order, visit): spread walks it from the least loaded node to the
//   first that holds the gang, O(1) per node visited;
// - the order split by each node's empty GPUs (split_by_empty, least_loaded_with_empty): the
//   least-loaded node with at least n empty GPUs (spread under exclusive GPUs) is the least
//   loaded of the first entries of counts n and above, O(max GPUs per node), where a walk
//   would pass every less-loaded node that is full (on a cluster of mixed node sizes a small
//   busy node ranks before a large half-empty one).
// Cost: O(log nodes) per change and kept view (balanced trees; a changed entry's tree node is
// moved, not reallocated: no allocation once a view is built).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "sim/state/topology.h"

namespace gpumux {

class NodeLoadOrder {
 public:
  // Starts tracking the loads of nodes 0..residents.size() - 1, with no view kept yet.
  // Precondition: residents.size() == free_mib.size().
  void reset(std::vector<std::int64_t> residents, std::vector<std::int64_t> free_mib);
  bool tracked() const { return tracked_; }
  // Node n gained `residents` entries (negative: lost) and `free_mib` MiB of free memory.
  void change(NodeIndex n, std::int64_t residents, std::int64_t free_mib);
  std::int64_t residents(NodeIndex n) const { return residents_[n]; }
  std::int64_t free_mib(NodeIndex n) const { return free_mib_[n]; }

  // The whole order. Precondition of keep_order: tracked().
  void keep_order();
  bool ordered() const { return ordered_; }
  // Calls visit(node) for the nodes from the least loaded on, until visit returns false.
  // Precondition: ordered().
  template <typename Visit>
  void visit(Visit&& visit) const {
    for (const Entry& e : order_) {
      if (!visit(e.node)) return;
    }
  }

  // The split by empty GPUs: node n has empty[n] (0..max_count) empty GPUs.
  // Precondition: tracked(), empty.size() == the node count.
  void split_by_empty(const std::vector<int>& empty, int max_count);
  bool split() const { return !by_empty_.empty(); }
  // Node n now has `empty` empty GPUs. Precondition: split().
  void set_empty(NodeIndex n, int empty);
  // The least-loaded node with at least n (>= 1) empty GPUs; nullopt when none has.
  // Precondition: split().
  std::optional<NodeIndex> least_loaded_with_empty(int n) const;

 private:
  struct Entry {
    std::int64_t residents = 0;
    std::int64_t free_mib = 0;
    NodeIndex node = 0;
  };
  struct LessLoaded {
    bool operator()(const Entry& a, const Entry& b) const {
      if (a.residents != b.residents) return a.residents < b.residents;
      if (a.free_mib != b.free_mib) return a.free_mib > b.free_mib;
      return a.node < b.node;
    }
  };
  using Order = std::set<Entry, LessLoaded>;
  Entry entry(NodeIndex n) const { return Entry{residents_[n], free_mib_[n], n}; }
  bool tracked_ = false;
  bool ordered_ = false;
  std::vector<std::int64_t> residents_, free_mib_;
  Order order_;
  std::vector<int> empty_;       // per node, while split
  std::vector<Order> by_empty_;  // by_empty_[k]: the nodes with k empty GPUs, while split
};

}  // namespace gpumux
