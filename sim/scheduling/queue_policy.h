// A queue policy: the order queued jobs wait in and the rule deciding which start. The
// scheduler (sim/scheduling/scheduler.h) owns one, built from the table of policies
// (sim/scheduling/registry.h); each implementation lives in its own file:
// fifo_queue.h, backfill_queue.h, greedy_queue.h.
//
// Contract: the scheduler counts a job in (JobStarter::count_in) before enqueue() or requeue();
// a policy starts jobs only through the JobStarter (place_now, then launch or launch_pooled),
// which keeps the counts. `jobs` must hold a queued job's slot until the job leaves the queue.
// A policy learns whether the cluster is pooled (Cluster::pooled) before the first job is
// queued, from starter.pooled(): jobs then fit by pool amount and no placement policy is asked.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/base/units.h"
#include "sim/core/sharing_model.h"
#include "sim/scheduling/job_starter.h"
#include "sim/state/cluster.h"
#include "sim/state/job_table.h"

namespace gpumux {

// What one scheduling pass sees.
struct SchedulePass {
  Time now;
  const Cluster& cluster;
  const SharingModel& model;
  JobTable& jobs;
  // The running jobs (for a backfill reservation); read after launches, which may grow it.
  const std::vector<JobSlot>& running;
  Launcher& launcher;
};

class QueuePolicy {
 public:
  virtual ~QueuePolicy() = default;

  virtual void enqueue(JobSlot job, const JobTable& jobs, const JobStarter& starter) = 0;
  // A killed job returning to the queue.
  virtual void requeue(JobSlot job, const JobTable& jobs, const JobStarter& starter) = 0;
  // The first min(n, queued) jobs in queue order (out[0] = head), replacing `out`'s contents.
  virtual void front(std::size_t n, std::vector<JobSlot>& out, const JobStarter& starter) const = 0;
  // The head (front(1)'s job) in `out`, without allocating; false when the queue is empty.
  virtual bool head(JobSlot& out, const JobStarter& starter) const = 0;
  // Starts every job the policy allows in this pass.
  virtual void schedule(const SchedulePass& pass, JobStarter& starter) = 0;
};

}  // namespace gpumux
