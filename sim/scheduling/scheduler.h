// The job queue: a queue policy from the table (sim/scheduling/registry.h: fifo,
// fifo-backfill, greedy; each in its own file) and the JobStarter it starts jobs with
// (sim/scheduling/job_starter.h: placement, counts, the Launcher).
//
// On a pooled cluster (sim/state/pool.h) a job fits when its pool amount (GPU fraction and CPU
// cores) fits what is free; no placement policy is asked.
//
// CPU-only jobs (gpus 0) on a cluster of nodes queue like the others, in the same order; one
// starts when the placement policy finds a node with its cores free
// (PlacementPolicy::place_cpu_only).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "sim/core/sharing_model.h"
#include "sim/placement/placement.h"
#include "sim/scheduling/job_starter.h"
#include "sim/scheduling/queue_entry.h"
#include "sim/scheduling/queue_policy.h"
#include "sim/scheduling/registry.h"
#include "sim/state/cluster.h"
#include "sim/state/job_table.h"

namespace gpumux {

class Scheduler {
 public:
  // `queue` is an entry of queue_policies(), built with `settings` and its `params`
  // (read_queue_params). Throws std::invalid_argument for kShortest with a policy that takes no
  // order.
  Scheduler(const QueuePolicyInfo& queue, std::unique_ptr<PlacementPolicy> placement,
            const QueueSettings& settings, const ParameterSet& params = {});
  // The same by name, with default parameters (tests, benchmarks). Throws
  // std::invalid_argument for an unknown name.
  Scheduler(std::string_view queue, std::unique_ptr<PlacementPolicy> placement, int backfill_depth,
            QueueOrder order = QueueOrder::kArrival);

  // Whether the cluster is pooled (Cluster::pooled): jobs then fit by pool amount. Set before
  // the first job is queued (the engine does).
  void set_pooled(bool pooled) { starter_.set_pooled(pooled); }
  // The run's sharing model, before the first job is queued and after set_pooled (the engine
  // does): under admission by key and a placement that places by kind, queues that can look at
  // one job per request kind do (JobStarter::set_model).
  void set_model(const SharingModel& model) { starter_.set_model(model); }

  // `jobs` gives the job's spec (its order key under greedy); the slot must hold it until the
  // job leaves the queue.
  void enqueue(JobSlot job, const JobTable& jobs);
  // A killed job returns at the head under fifo and fifo-backfill (it had already been chosen
  // once); under greedy it takes its place by the queue's order again.
  void requeue(JobSlot job, const JobTable& jobs);
  std::size_t queued() const { return starter_.queued(); }
  // The first min(n, queued()) jobs in queue order (out[0] = head), replacing `out`'s contents.
  void front(std::size_t n, std::vector<JobSlot>& out) const { policy_->front(n, out, starter_); }
  const PlacementPolicy& placement() const { return starter_.placement(); }
  // Why the head did not start in the pass just made (JobStarter::blocked_reason), with the
  // cluster as that pass left it. Precondition: queued() > 0. Allocates nothing.
  QueueReason blocked_reason(const Cluster& cluster, const SharingModel& model,
                             const JobTable& jobs, GpuViewBuilder& views);
  std::string_view policy_name() const { return info_->name; }
  QueueOrder order() const { return order_; }

  // Starts every job the policy allows at `now`. `running` lists the running jobs (for the
  // backfill reservation); it is read after launcher.start() calls, which may grow it.
  void schedule(Time now, const Cluster& cluster, const SharingModel& model, JobTable& jobs,
                const std::vector<JobSlot>& running, Launcher& launcher) {
    policy_->schedule(SchedulePass{now, cluster, model, jobs, running, launcher}, starter_);
  }

 private:
  const QueuePolicyInfo* info_;
  QueueOrder order_;
  JobStarter starter_;
  std::unique_ptr<QueuePolicy> policy_;
};

}  // namespace gpumux
