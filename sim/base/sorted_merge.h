// The first n elements, in order, of several sorted ranges taken together: a k-way merge of n
// steps, one comparison per range each. For queues kept as one ordered set per
// request (sim/scheduling/greedy_queue.cc per gang size, sim/scheduling/pool_queue.cc per distinct pooled request), whose
// front is asked rarely and for few jobs; costs O(n x ranges).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace gpumux {

// Appends to `out` (not cleared) `slot_of(element)` for the first `n` elements in `<` order of
// the sorted ranges [first, second) in `at` (ties go to the earlier range). Consumes `at`.
template <typename Iterator, typename SlotOf, typename Slot>
void merge_front(std::vector<std::pair<Iterator, Iterator>> at, std::size_t n, SlotOf slot_of,
                 std::vector<Slot>& out) {
  while (out.size() < n) {
    std::size_t best = at.size();
    for (std::size_t i = 0; i < at.size(); ++i) {
      if (at[i].first == at[i].second) continue;
      if (best == at.size() || *at[i].first < *at[best].first) best = i;
    }
    if (best == at.size()) break;
    out.push_back(slot_of(*at[best].first));
    ++at[best].first;
  }
}

}  // namespace gpumux
