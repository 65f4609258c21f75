// Nodes ordered by load as spread placement ranks them (sim/placement.h): fewest resident
// jobs, then most free memory, then lowest index. The cluster keeps one in step with every
// resident added or removed and every memory change once spread placement has asked for it
// (Cluster::nodes_by_load), so that spread finds the least-loaded node that holds a gang by
// walking the order from its start, without a pass over every node.
//
// Units: residents are resident entries summed over the node's GPUs (a gang with two GPUs on
// the node counts twice, as GpuState::residents does); free memory is MiB summed over the
// node's GPUs (device memory minus GpuState::memory_used, available or not).
//
// Cost: O(log nodes) per change (a balanced tree; the changed entry's tree node is moved, not
// reallocated: no allocation after reset). A walk costs O(1) per node visited.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "sim/topology.h"

namespace gpumux {

class NodeLoadOrder {
 public:
  // Starts keeping the order of nodes 0..residents.size() - 1 with these loads.
  // Precondition: residents.size() == free_mib.size().
  void reset(std::vector<std::int64_t> residents, std::vector<std::int64_t> free_mib);
  bool kept() const { return kept_; }
  // Node n gained `residents` entries (negative: lost) and `free_mib` MiB of free memory.
  void change(NodeIndex n, std::int64_t residents, std::int64_t free_mib);
  std::int64_t residents(NodeIndex n) const { return residents_[n]; }
  std::int64_t free_mib(NodeIndex n) const { return free_mib_[n]; }
  // Calls visit(node) for the nodes from the least loaded on, until visit returns false.
  template <typename Visit>
  void visit(Visit&& visit) const {
    for (const Entry& e : order_) {
      if (!visit(e.node)) return;
    }
  }

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
  bool kept_ = false;
  std::vector<std::int64_t> residents_, free_mib_;
  std::set<Entry, LessLoaded> order_;
};

}  // namespace gpumux
