// fifo: strict arrival order. When the head does not fit, nothing behind it starts; a killed
// job returns at the head (it had already been chosen once).
#pragma once

#include <deque>

#include "sim/scheduling/pool_releases.h"
#include "sim/scheduling/queue_policy.h"

namespace gpumux {

class FifoQueue : public QueuePolicy {
 public:
  void enqueue(JobSlot job, const JobTable& jobs, const JobStarter& starter) override;
  void requeue(JobSlot job, const JobTable& jobs, const JobStarter& starter) override;
  void front(std::size_t n, std::vector<JobSlot>& out, const JobStarter& starter) const override;
  bool head(JobSlot& out, const JobStarter& starter) const override;
  void schedule(const SchedulePass& pass, JobStarter& starter) override;

 protected:
  // Starts jobs from the head while they fit.
  void start_heads(const SchedulePass& pass, GpuViewBuilder& views, JobStarter& starter);
  // The same on a pooled cluster, adding each start to `releases` when it is given.
  void start_pool_heads(const SchedulePass& pass, JobStarter& starter, PoolReleases* releases);

  std::deque<JobSlot> queue_;
};

}  // namespace gpumux
