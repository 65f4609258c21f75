// Nodes by how many of their GPUs have room for a job's need, for a few needs at a time: the
// index behind placement under models whose admission is decided by rooms alone
// (SharingModel::room_decides_admission: a GPU admits a job iff its open room >= the job's need).
//
// For each kept need ("class"), every node's count of GPUs whose open room (Cluster::open_room:
// NaN while unavailable) is >= the need, and per count k a bitmap over the nodes with exactly k.
// A placement then finds the lowest node with >= n such GPUs, or the one with the fewest (>= n,
// lowest on ties), from max_gpus_per_node bitmaps of nodes / 64 words instead of a pass over
// every GPU.
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
#include <vector>

#include "sim/node_buckets.h"
#include "sim/topology.h"

namespace gpumux {

class RoomClassIndex {
 public:
  static constexpr std::size_t kMaxClasses = 8;

  // The nodes: GPU count of each (>= 1) and each one's first GPU index (GPUs of a node are
  // consecutive). Forgets every class.
  void reset(std::vector<int> gpus_per_node, std::vector<GpuIndex> first_gpu);

  // GPU g of node n: its open room went from `before` to `after` (NaN: unavailable).
  void on_room_changed(NodeIndex n, double before, double after);

  // The class of `need`, built from `open_room` (one per GPU) if not kept. Returns its handle,
  // valid until the next call of class_for.
  std::size_t class_for(double need, std::span<const double> open_room);

  // In class c: the lowest-index node with at least n (>= 1) GPUs of room; the node with the
  // fewest such GPUs that still has n, lowest index on ties. nullopt when no node has n.
  std::optional<NodeIndex> first_node(std::size_t c, int n) const;
  std::optional<NodeIndex> tightest_node(std::size_t c, int n) const;
  // In class c: node n's count of GPUs with room.
  int count(std::size_t c, NodeIndex n) const { return classes_[c].count[n]; }

 private:
  struct Class {
    double need = 0.0;
    std::uint64_t last_asked = 0;
    std::vector<std::uint8_t> count;  // per node
    NodeBuckets buckets;              // nodes by count
  };

  std::vector<int> gpus_per_node_;
  std::vector<GpuIndex> first_gpu_;
  int max_gpus_ = 0;
  std::vector<Class> classes_;
  std::uint64_t asked_ = 0;  // a clock for last_asked
};

}  // namespace gpumux
