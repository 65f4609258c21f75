// Nodes by how many of their GPUs have room for a job's need, for a few needs at a time: the
// index behind placement under models whose admission is decided by rooms alone
// (RoomBound::room_decides_admission: a GPU admits a job iff its open room >= the job's need).
//
// For each kept need ("class"), every node's count of GPUs whose open room (Cluster::open_room:
// NaN while unavailable) is >= the need, and per count k a bitmap over the nodes with exactly k.
// A placement then finds the lowest node with >= n such GPUs, or the one with the fewest (>= n,
// lowest on ties), from max_gpus_per_node bitmaps of nodes / 64 words instead of a pass over
// every GPU; and a gang that no node holds takes its rack (per-rack counts) or the nodes with
// the most such GPUs (the bitmaps, most first), without counting every node.
//
// Why a few needs: the counts depend on the need, and a trace's jobs ask for a few distinct
// amounts (memory sizes) most of the time. Classes are kept for the most recently asked needs
// (at most kMaxClasses); a need not kept replaces the least recently asked one and is counted
// once over every GPU, the cost of one unindexed placement. Every kept class is updated on each
// room change (on_room_changed: two comparisons per class).
//
// Allocation: a class's arrays are allocated when it is first built; replacing a class reuses
// them. Queries and updates never allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "sim/state/node_buckets.h"
#include "sim/state/topology.h"

namespace gpumux {

class RoomClassIndex {
 public:
  static constexpr std::size_t kMaxClasses = 8;

  // The nodes: GPU count of each (>= 1), each one's first GPU index (GPUs of a node are
  // consecutive) and its rack (dense from 0). Forgets every class.
  void reset(std::vector<int> gpus_per_node, std::vector<GpuIndex> first_gpu,
             std::vector<int> rack_of_node);

  // GPU g of node n: its open room went from `before` to `after` (NaN: unavailable).
  void on_room_changed(NodeIndex n, double before, double after);

  // The class of `need`, built from `open_room` (one per GPU) if not kept. Returns its handle,
  // valid until the next call of class_for.
  std::size_t class_for(double need, std::span<const double> open_room);

  // In class c: the lowest-index node with at least n (>= 1) GPUs of room; the node with the
  // fewest such GPUs that still has n, lowest index on ties. nullopt when no node has n.
  std::optional<NodeIndex> first_node(std::size_t c, int n) const;
  std::optional<NodeIndex> tightest_node(std::size_t c, int n) const;
  // In class c: node n's count of GPUs with room; rack r's (the sum over its nodes).
  int count(std::size_t c, NodeIndex n) const { return classes_[c].count[n]; }
  int rack_count(std::size_t c, int r) const {
    return classes_[c].per_rack[static_cast<std::size_t>(r)];
  }
  // In class c: calls f(node) for each node with exactly k (1 <= k <= the most GPUs of a node)
  // GPUs with room, in increasing node order, until f returns false.
  template <typename Visit>
  void visit(std::size_t c, int k, Visit&& f) const {
    classes_[c].buckets.visit(k, std::forward<Visit>(f));
  }
  // In class c: calls f(node) for each node with at least n (>= 1) GPUs with room, in
  // increasing node order, until f returns false.
  template <typename Visit>
  void visit_at_least(std::size_t c, int n, Visit&& f) const {
    classes_[c].buckets.visit_at_least(n, std::forward<Visit>(f));
  }

 private:
  struct Class {
    double need = 0.0;
    std::uint64_t last_asked = 0;
    std::vector<int> count;           // per node (a pooled node holds thousands of GPUs)
    std::vector<int> per_rack;        // per rack: the sum of its nodes' counts
    NodeBuckets buckets;              // nodes by count
  };

  std::vector<int> gpus_per_node_;
  std::vector<GpuIndex> first_gpu_;
  std::vector<int> rack_of_node_;
  std::size_t racks_ = 0;
  int max_gpus_ = 0;
  std::vector<Class> classes_;
  std::uint64_t asked_ = 0;  // a clock for last_asked
};

// One need's counts (a class of the index), for a placement that asks several questions of
// the same need. Valid until the index's next class_for (the class may then be replaced).
class RoomCounts {
 public:
  RoomCounts(const RoomClassIndex& index, std::size_t c) : index_(&index), class_(c) {}
  int on_node(NodeIndex n) const { return index_->count(class_, n); }
  int in_rack(int r) const { return index_->rack_count(class_, r); }
  std::optional<NodeIndex> first_node(int n) const { return index_->first_node(class_, n); }
  std::optional<NodeIndex> tightest_node(int n) const { return index_->tightest_node(class_, n); }
  template <typename Visit>
  void visit_nodes_with(int k, Visit&& f) const {
    index_->visit(class_, k, std::forward<Visit>(f));
  }
  template <typename Visit>
  void visit_nodes_with_at_least(int n, Visit&& f) const {
    index_->visit_at_least(class_, n, std::forward<Visit>(f));
  }

 private:
  const RoomClassIndex* index_;
  std::size_t class_;
};

}  // namespace gpumux
