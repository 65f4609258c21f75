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
//
// Where jobs go by request kind (JobStarter::by_kind: a share-aware placement under a model with
// admission by key) the queue is one ordered set per kind instead. Jobs of one kind fit or not
// alike, so a pass asks each kind once per start: it starts the earliest job, after the last one
// started, of the kinds that fit now, which is the job the plain pass would have reached next,
// and a kind whose refusal still holds is known by the nodes that changed since
// (PlacementPolicy::surely_refused). A pass then costs O((starts + 1) x kinds), not a look at
// every queued job.
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

  void schedule_by_kind(const SchedulePass& pass, JobStarter& starter);
  struct KindGroup {
    int gpus = 0;
    std::set<QueueEntry> entries;
  };
  std::map<RequestKind, KindGroup> by_kind_;  // every kind seen; emptied ones stay for reuse
  std::vector<KindGroup*> kinds_;             // by_kind_'s groups, in the order first seen
  struct Candidate {
    std::set<QueueEntry>::iterator at;
    KindGroup* group;
  };
  std::vector<Candidate> candidates_;
  QueueEntry last_started_;  // a pass's cursor: the entry of the job it started last
};

}  // namespace gpumux
