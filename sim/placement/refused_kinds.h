// The request kinds (sim/placement/request_kind.h) a placement policy last found no node for,
// each with the cluster's change position (sim/state/node_change_log.h) of that look. A node
// that did not change since cannot take the kind now either, so whether the kind is still
// refused is a look at the nodes that changed since, not at the whole cluster: at saturation a
// queue pass then costs what changed, not the number of nodes times the jobs waiting.
#pragma once

#include <cstdint>
#include <map>

#include "sim/placement/request_kind.h"
#include "sim/state/node_change_log.h"

namespace gpumux {

class RefusedKinds {
 public:
  // Records that no node took `kind` at change position `position`.
  void refused(const RequestKind& kind, std::uint64_t position) { at_[kind] = position; }

  // True when `kind` was refused everywhere and no node changed since takes it:
  // node_takes(node) must answer, for the cluster as it is now, whether that node takes the
  // kind (the policy's own test). The refusal is then moved to now. False when the kind was
  // never refused, when the log holds more than 8 x `nodes` touches since (a whole look
  // costs less: it asks every GPU of every node), or when a changed node takes it. Allocation-free.
  template <typename NodeTakes>
  bool still_refused(const RequestKind& kind, const NodeChangeLog& log, std::size_t nodes,
                     NodeTakes&& node_takes) {
    const auto it = at_.find(kind);
    if (it == at_.end() || log.touches_since(it->second) > 8 * nodes) return false;
    bool taken = false;
    log.visit_since(it->second, [&](NodeIndex n) {
      taken = node_takes(n);
      return !taken;
    });
    if (taken) return false;
    it->second = log.now();
    return true;
  }

 private:
  std::map<RequestKind, std::uint64_t> at_;
};

}  // namespace gpumux
