#include "sim/scheduling/registry.h"

#include "sim/scheduling/backfill_queue.h"
#include "sim/scheduling/fifo_queue.h"
#include "sim/scheduling/greedy_queue.h"

namespace gpumux {

const Registry<QueuePolicyInfo>& queue_policies() {
  static const Registry<QueuePolicyInfo> table(
      "queue policy",
      {
          {"fifo", "strict arrival order: when the head does not fit, nothing behind it starts",
           false,
           [](const QueueSettings&, const ParameterSet&) -> std::unique_ptr<QueuePolicy> {
             return std::make_unique<FifoQueue>();
           }},
          {"fifo-backfill",
           "EASY backfilling: the head holds a reservation, later jobs start if they leave it "
           "intact (scheduler.backfill_depth jobs examined per pass)",
           false,
           [](const QueueSettings& s, const ParameterSet&) -> std::unique_ptr<QueuePolicy> {
             return std::make_unique<BackfillQueue>(s.backfill_depth);
           }},
          {"greedy",
           "start every queued job that fits now, in the queue's order (scheduler.order: "
           "arrival or shortest); nothing is reserved for the head",
           true,
           [](const QueueSettings& s, const ParameterSet&) -> std::unique_ptr<QueuePolicy> {
             return std::make_unique<GreedyQueue>(s.order);
           }},
      });
  return table;
}

ParameterSet read_queue_params(const QueuePolicyInfo& info, JsonObject& params) {
  return info.read_params ? info.read_params(params) : ParameterSet{};
}

}  // namespace gpumux
