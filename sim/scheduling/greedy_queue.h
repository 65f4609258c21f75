// greedy: after completions and arrivals, start the first queued job (in the queue's order,
// sim/scheduling/queue_entry.h) that fits now, and again, until none fits; no job waits for the
// head, and nothing is reserved for it. A large head can starve behind a stream of small jobs:
// that is the rule. A killed job takes its place by the queue's order again.
//
// The queue is kept in one ordered set per gang size, so a pass never visits a job that cannot
// fit by GPU count: under models that need empty GPUs (exclusive) only sizes up to the cluster's
// empty-GPU count are looked at, and the pass ends when none is empty (unless CPU-only jobs
// wait). Under sharing models every size is looked at (a GPU with a resident may still admit a
// job). On a pooled cluster the queue is a PoolQueue (one group per distinct amount,
// sim/scheduling/pool_queue.h).
#pragma once

#include <map>
#include <set>
#include <vector>

#include "sim/scheduling/pool_queue.h"
#include "sim/scheduling/queue_entry.h"
#include "sim/scheduling/queue_policy.h"

namespace gpumux {

class GreedyQueue : public QueuePolicy {
 public:
  explicit GreedyQueue(QueueOrder order) : order_(order) {}

  void enqueue(JobSlot job, const JobTable& jobs, const JobStarter& starter) override;
  void requeue(JobSlot job, const JobTable& jobs, const JobStarter& starter) override;
  void front(std::size_t n, std::vector<JobSlot>& out, const JobStarter& starter) const override;
  bool head(JobSlot& out, const JobStarter& starter) const override;
  void schedule(const SchedulePass& pass, JobStarter& starter) override;

 private:
  QueueOrder order_;
  std::map<int, std::set<QueueEntry>> by_gpus_;  // gang size -> ordered entries
  struct Cursor {
    std::set<QueueEntry>* bucket;
    std::set<QueueEntry>::iterator at;
    int gpus;
  };
  std::vector<Cursor> cursors_;
  PoolQueue pool_queue_;  // on a pooled cluster
};

}  // namespace gpumux
