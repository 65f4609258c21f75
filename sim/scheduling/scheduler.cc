#include "sim/scheduling/scheduler.h"

#include <stdexcept>
#include <string>

namespace gpumux {

namespace {

const QueuePolicyInfo& checked_policy(std::string_view queue, QueueOrder order) {
  const QueuePolicyInfo* info = find_queue_policy(queue);
  if (info == nullptr) {
    throw std::invalid_argument("unknown queue policy '" + std::string(queue) + "'");
  }
  if (order != QueueOrder::kArrival && !info->takes_order) {
    throw std::invalid_argument("queue order '" + std::string(queue_order_name(order)) +
                                "' does not apply to the '" + std::string(queue) + "' queue");
  }
  return *info;
}

}  // namespace

Scheduler::Scheduler(std::string_view queue, std::unique_ptr<PlacementPolicy> placement,
                     int backfill_depth, QueueOrder order)
    : info_(&checked_policy(queue, order)),
      order_(order),
      starter_(std::move(placement)),
      policy_(info_->make(QueueSettings{backfill_depth, order})) {}

QueueReason Scheduler::blocked_reason(const Cluster& cluster, const SharingModel& model,
                                      const JobTable& jobs, GpuViewBuilder& views) {
  JobSlot head = 0;
  if (!policy_->head(head, starter_)) throw std::logic_error("scheduler: no head to explain");
  return starter_.blocked_reason(cluster, model, views, jobs[head].spec);
}

void Scheduler::enqueue(JobSlot job, const JobTable& jobs) {
  starter_.count_in(jobs[job].spec);
  policy_->enqueue(job, jobs, starter_);
}

void Scheduler::requeue(JobSlot job, const JobTable& jobs) {
  starter_.count_in(jobs[job].spec);
  policy_->requeue(job, jobs, starter_);
}

}  // namespace gpumux
