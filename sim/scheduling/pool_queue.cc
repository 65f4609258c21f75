#include "sim/scheduling/pool_queue.h"

#include "sim/base/sorted_merge.h"

namespace gpumux {

void PoolQueue::push(const PoolAmount& amount, Entry entry) {
  Group& g = groups_.try_emplace(amount, Group{amount, {}}).first->second;
  ++size_;
  if (g.entries.empty()) {
    g.entries.insert(std::move(entry));
    heads_.insert(&g);
    return;
  }
  if (entry < *g.entries.begin()) {
    // The group's position depends on its head: take it out while the head changes.
    heads_.erase(&g);
    g.entries.insert(std::move(entry));
    heads_.insert(&g);
    return;
  }
  g.entries.insert(std::move(entry));
}

void PoolQueue::front(std::size_t n, std::vector<JobSlot>& out) const {
  out.clear();
  // A merge of the groups (sorted_merge.h): a rare, small request.
  std::vector<std::pair<std::set<Entry>::const_iterator, std::set<Entry>::const_iterator>> at;
  for (const Group* g : heads_) at.emplace_back(g->entries.begin(), g->entries.end());
  merge_front(
      std::move(at), n, [](const Entry& e) { return e.slot; }, out);
}

}  // namespace gpumux
