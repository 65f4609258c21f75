#include "sim/scheduling/fifo_queue.h"

#include <algorithm>

namespace gpumux {

void FifoQueue::enqueue(JobSlot job, const JobTable&, const JobStarter&) { queue_.push_back(job); }

void FifoQueue::requeue(JobSlot job, const JobTable&, const JobStarter&) { queue_.push_front(job); }

void FifoQueue::front(std::size_t n, std::vector<JobSlot>& out, const JobStarter&) const {
  const std::size_t k = std::min(n, queue_.size());
  out.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(k));
}

bool FifoQueue::head(JobSlot& out, const JobStarter&) const {
  if (queue_.empty()) return false;
  out = queue_.front();
  return true;
}

void FifoQueue::schedule(const SchedulePass& pass, JobStarter& starter) {
  if (starter.pooled()) {
    start_pool_heads(pass, starter, nullptr);
    return;
  }
  GpuViewBuilder views(pass.cluster, pass.jobs);
  start_heads(pass, views, starter);
}

void FifoQueue::start_heads(const SchedulePass& pass, GpuViewBuilder& views, JobStarter& starter) {
  while (!queue_.empty()) {
    const JobSlot head = queue_.front();
    const JobSpec& spec = pass.jobs[head].spec;
    if (!starter.place_now(pass.cluster, pass.model, views, spec)) break;
    queue_.pop_front();
    starter.launch(head, spec, pass.launcher);
  }
}

void FifoQueue::start_pool_heads(const SchedulePass& pass, JobStarter& starter,
                                 PoolReleases* releases) {
  while (!queue_.empty()) {
    const JobSlot head = queue_.front();
    if (!pass.cluster.pool_fits(pool_request(pass.jobs[head].spec))) break;
    queue_.pop_front();
    starter.launch_pooled(head, pass.launcher);
    if (releases != nullptr) releases->add(head, pass.jobs[head]);
  }
}

}  // namespace gpumux
