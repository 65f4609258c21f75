#include "sim/state/node_load_order.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace gpumux {

namespace {

// Moves entry `from` of `order` into `into` with the value `to`, reusing its tree node.
template <class Order>
void move_entry(Order& order, Order& into, const typename Order::value_type& from,
                const typename Order::value_type& to) {
  auto handle = order.extract(from);
  if (handle.empty()) throw std::logic_error("node load order: a node is missing from the order");
  handle.value() = to;
  into.insert(std::move(handle));
}

}  // namespace

void NodeLoadOrder::reset(std::vector<std::int64_t> residents, std::vector<std::int64_t> free_mib) {
  if (residents.size() != free_mib.size()) {
    throw std::logic_error("node load order: one resident count and one free memory per node");
  }
  residents_ = std::move(residents);
  free_mib_ = std::move(free_mib);
  order_.clear();
  ordered_ = false;
  empty_.clear();
  by_empty_.clear();
  tracked_ = true;
}

void NodeLoadOrder::change(NodeIndex n, std::int64_t residents, std::int64_t free_mib) {
  if (residents == 0 && free_mib == 0) return;
  const Entry before = entry(n);
  residents_[n] += residents;
  free_mib_[n] += free_mib;
  const Entry after = entry(n);
  if (ordered_) move_entry(order_, order_, before, after);
  if (split()) {
    Order& bucket = by_empty_[static_cast<std::size_t>(empty_[n])];
    move_entry(bucket, bucket, before, after);
  }
}

void NodeLoadOrder::keep_order() {
  if (!tracked_) throw std::logic_error("node load order: no loads to order");
  order_.clear();
  for (NodeIndex n = 0; n < residents_.size(); ++n) order_.insert(entry(n));
  ordered_ = true;
}

void NodeLoadOrder::split_by_empty(const std::vector<int>& empty, int max_count) {
  if (!tracked_ || empty.size() != residents_.size() || max_count < 0) {
    throw std::logic_error("node load order: split by empty GPUs needs one count per node");
  }
  empty_ = empty;
  by_empty_.assign(static_cast<std::size_t>(max_count) + 1, {});
  for (NodeIndex n = 0; n < empty_.size(); ++n) {
    if (empty_[n] < 0 || empty_[n] > max_count) {
      throw std::logic_error("node load order: an empty-GPU count out of range");
    }
    by_empty_[static_cast<std::size_t>(empty_[n])].insert(entry(n));
  }
}

void NodeLoadOrder::set_empty(NodeIndex n, int empty) {
  if (empty == empty_[n]) return;
  if (empty < 0 || static_cast<std::size_t>(empty) >= by_empty_.size()) {
    throw std::logic_error("node load order: an empty-GPU count out of range");
  }
  move_entry(by_empty_[static_cast<std::size_t>(empty_[n])],
             by_empty_[static_cast<std::size_t>(empty)], entry(n), entry(n));
  empty_[n] = empty;
}

std::optional<NodeIndex> NodeLoadOrder::least_loaded_with_empty(int n) const {
  const LessLoaded less;
  const Entry* best = nullptr;
  for (std::size_t k = static_cast<std::size_t>(std::max(n, 1)); k < by_empty_.size(); ++k) {
    if (by_empty_[k].empty()) continue;
    const Entry& first = *by_empty_[k].begin();
    if (best == nullptr || less(first, *best)) best = &first;
  }
  if (best == nullptr) return std::nullopt;
  return best->node;
}

}  // namespace gpumux
