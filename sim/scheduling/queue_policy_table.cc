#include "sim/scheduling/queue_policy_table.h"

#include "sim/scheduling/backfill_queue.h"
#include "sim/scheduling/fifo_queue.h"
#include "sim/scheduling/greedy_queue.h"

namespace gpumux {

const std::vector<QueuePolicyInfo>& queue_policies() {
  static const std::vector<QueuePolicyInfo> table = {
      {"fifo", "strict arrival order: when the head does not fit, nothing behind it starts", false,
       [](const QueueSettings&) -> std::unique_ptr<QueuePolicy> {
         return std::make_unique<FifoQueue>();
       }},
      {"fifo-backfill",
       "EASY backfilling: the head holds a reservation, later jobs start if they leave it intact "
       "(scheduler.backfill_depth jobs examined per pass)",
       false,
       [](const QueueSettings& s) -> std::unique_ptr<QueuePolicy> {
         return std::make_unique<BackfillQueue>(s.backfill_depth);
       }},
      {"greedy",
       "start every queued job that fits now, in the queue's order (scheduler.order: arrival or "
       "shortest); nothing is reserved for the head",
       true,
       [](const QueueSettings& s) -> std::unique_ptr<QueuePolicy> {
         return std::make_unique<GreedyQueue>(s.order);
       }},
  };
  return table;
}

const QueuePolicyInfo* find_queue_policy(std::string_view name) {
  for (const auto& p : queue_policies()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<std::string> queue_policy_names() {
  std::vector<std::string> names;
  for (const auto& p : queue_policies()) names.emplace_back(p.name);
  return names;
}

}  // namespace gpumux
