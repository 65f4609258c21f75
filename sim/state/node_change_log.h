// Which nodes changed since a given moment: the cluster touches a node in the log on every
// change it makes there (residents, memory in use, rooms, availability, CPUs), so that a
// placement that once found no node for a kind of job can check again only the nodes that
// changed since (sim/placement/refused_kinds.h), not the whole cluster.
//
// Positions are counts of touches since the start; a position read with now() stays valid for
// visit_since() while the log still holds what followed it. The log keeps the last touches only
// (at least 8 x nodes + 4096), so memory stays bounded over a run of any length: an older
// position answers "unknown" and the caller looks at every node instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/state/topology.h"

namespace gpumux {

class NodeChangeLog {
 public:
  void reset(std::size_t nodes) {
    last_.assign(nodes, 0);
    log_.clear();
    log_.reserve(2 * keep(nodes));
    base_ = 1;
  }

  // O(1) amortized; allocation-free once the log has reached its bound.
  void touch(NodeIndex n) {
    if (log_.size() >= 2 * keep(last_.size())) {
      const std::size_t drop = log_.size() - keep(last_.size());
      log_.erase(log_.begin(), log_.begin() + static_cast<std::ptrdiff_t>(drop));
      base_ += drop;
    }
    log_.push_back(n);
    last_[n] = base_ + log_.size() - 1;
  }

  // The position after every touch so far.
  std::uint64_t now() const { return base_ + log_.size(); }

  // The number of touches since `position` (nodes counted once per touch), or SIZE_MAX when the
  // log no longer holds them.
  std::size_t touches_since(std::uint64_t position) const {
    if (position < base_) return SIZE_MAX;
    return static_cast<std::size_t>(now() - position);
  }

  // Calls visit(node) once for each node touched at or after `position` (in the order of their
  // last touches) until visit returns false; returns false when the log no longer holds
  // `position` (nothing visited). Precondition: position <= now().
  template <typename Visit>
  bool visit_since(std::uint64_t position, Visit&& visit) const {
    if (position < base_) return false;
    for (std::size_t i = static_cast<std::size_t>(position - base_); i < log_.size(); ++i) {
      const NodeIndex n = log_[i];
      if (last_[n] != base_ + i) continue;  // touched again later: visited then
      if (!visit(n)) break;
    }
    return true;
  }

 private:
  static std::size_t keep(std::size_t nodes) { return 8 * nodes + 4096; }

  std::vector<NodeIndex> log_;       // the node of each touch held, oldest first
  std::vector<std::uint64_t> last_;  // per node: the position of its last touch (0: none)
  std::uint64_t base_ = 1;           // position of log_[0]
};

}  // namespace gpumux
