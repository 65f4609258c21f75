// The greedy queue of a pooled cluster (sim/state/pool.h), indexed so that a scheduling pass costs
// O(distinct request amounts + jobs started x log), never a visit of every queued job.
//
// Jobs are grouped by their pool amount (GPU and CPU hundredths): within one group every job
// asks for the same, so only the group's earliest job (its head, in queue order) can be the next
// to start, and when it does not fit no other job of the group does. The groups with queued jobs
// are kept ordered by their heads; a pass walks them once from the earliest head, starting each
// head that fits. Free capacity only shrinks during a pass, so a group passed over stays unable
// to fit until the pass ends; a group whose head just started takes its place again by its new
// head, which comes later in queue order (and is visited if it lies ahead).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/scheduling/queue_entry.h"
#include "sim/state/cluster.h"
#include "sim/state/pool.h"

namespace gpumux {

class PoolQueue {
 public:
  // Queue order: (primary, submit, id, slot), sim/scheduling/queue_entry.h.
  using Entry = QueueEntry;

  void push(const PoolAmount& amount, Entry entry);
  std::size_t size() const { return size_; }

  // Starts, in queue order, every job whose amount fits the pool's free capacity as it shrinks:
  // calls start(slot) (which must take the job's amount from the pool) after removing the job.
  // Stops early when neither GPU nor CPU capacity is left (nothing is started then, not even a
  // job asking for none: the PAI simulator's rule).
  template <class Start>
  void start_fitting(const Cluster& cluster, Start&& start);

  // The first min(n, size()) jobs in queue order.
  void front(std::size_t n, std::vector<JobSlot>& out) const;
  // The first job in queue order in `out`; false when none is queued.
  bool head(JobSlot& out) const {
    if (heads_.empty()) return false;
    out = (*heads_.begin())->entries.begin()->slot;
    return true;
  }

 private:
  struct Group {
    PoolAmount amount;
    std::set<Entry> entries;
  };
  struct ByHead {
    bool operator()(const Group* a, const Group* b) const {
      return *a->entries.begin() < *b->entries.begin();
    }
  };
  std::map<PoolAmount, Group> groups_;  // every amount seen; empty groups stay for reuse
  std::set<Group*, ByHead> heads_;      // the groups with queued jobs, by their heads
  std::size_t size_ = 0;
};

template <class Start>
void PoolQueue::start_fitting(const Cluster& cluster, Start&& start) {
  auto exhausted = [&] { return cluster.pool_free().gpu <= 0 && cluster.pool_free().cpu <= 0; };
  if (size_ == 0 || exhausted()) return;
  auto it = heads_.begin();
  while (it != heads_.end()) {
    Group* g = *it;
    if (!cluster.pool_fits(g->amount)) {
      ++it;
      continue;
    }
    const JobSlot slot = g->entries.begin()->slot;
    auto next = heads_.erase(it);
    g->entries.erase(g->entries.begin());
    --size_;
    if (!g->entries.empty()) {
      // Its new head comes after the old one: ahead of `next` it is the next to look at.
      auto placed = heads_.insert(g).first;
      if (next == heads_.end() || ByHead{}(g, *next)) next = placed;
    }
    it = next;
    start(slot);
    if (exhausted()) return;
  }
}

}  // namespace gpumux
