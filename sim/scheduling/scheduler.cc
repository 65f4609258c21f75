#include "sim/scheduling/scheduler.h"

#include <stdexcept>
#include <string>

namespace gpumux {

namespace {

const QueuePolicyInfo& named_policy(std::string_view queue) {
  const QueuePolicyInfo* info = queue_policies().find(queue);
  if (info == nullptr) {
    throw std::invalid_argument("unknown queue policy '" + std::string(queue) + "'");
  }
  return *info;
}

const QueuePolicyInfo& checked_policy(const QueuePolicyInfo& info, QueueOrder order) {
  if (order != QueueOrder::kArrival && !info.takes_order) {
    throw std::invalid_argument("queue order '" + std::string(queue_order_name(order)) +
                                "' does not apply to the '" + std::string(info.name) + "' queue");
  }
  return info;
}

}  // namespace

Scheduler::Scheduler(const QueuePolicyInfo& queue, std::unique_ptr<PlacementPolicy> placement,
                     const QueueSettings& settings, const ParameterSet& params)
    : info_(&checked_policy(queue, settings.order)),
      order_(settings.order),
      starter_(std::move(placement)),
      policy_(info_->make(settings, params)) {}

Scheduler::Scheduler(std::string_view queue, std::unique_ptr<PlacementPolicy> placement,
                     int backfill_depth, QueueOrder order)
    : Scheduler(named_policy(queue), std::move(placement), QueueSettings{backfill_depth, order}) {}

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
