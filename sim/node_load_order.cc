#include "sim/node_load_order.h"

#include <stdexcept>
#include <utility>

namespace gpumux {

void NodeLoadOrder::reset(std::vector<std::int64_t> residents, std::vector<std::int64_t> free_mib) {
  if (residents.size() != free_mib.size()) {
    throw std::logic_error("node load order: one resident count and one free memory per node");
  }
  residents_ = std::move(residents);
  free_mib_ = std::move(free_mib);
  order_.clear();
  for (NodeIndex n = 0; n < residents_.size(); ++n) {
    order_.insert(order_.end(), Entry{residents_[n], free_mib_[n], n});
  }
  kept_ = true;
}

void NodeLoadOrder::change(NodeIndex n, std::int64_t residents, std::int64_t free_mib) {
  if (residents == 0 && free_mib == 0) return;
  auto handle = order_.extract(Entry{residents_[n], free_mib_[n], n});
  if (handle.empty()) throw std::logic_error("node load order: a node is missing from the order");
  residents_[n] += residents;
  free_mib_[n] += free_mib;
  handle.value() = Entry{residents_[n], free_mib_[n], n};
  order_.insert(std::move(handle));
}

}  // namespace gpumux
