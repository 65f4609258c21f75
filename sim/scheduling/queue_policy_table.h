// The queue policies by the names scenario files use (scheduler.queue), in one table: each
// entry's name, one line of what it does, whether it takes a queue order (scheduler.order), and
// how it is built. `gpumux models`, the scenario validator's errors and the Scheduler read this
// table; it is the only list of queue policy names.
//
// To add a policy: implement QueuePolicy (queue_policy.h) in its own files in this folder and
// add one line to the table in queue_policy_table.cc.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scheduling/queue_entry.h"
#include "sim/scheduling/queue_policy.h"

namespace gpumux {

// What a policy may be built with (scenario keys scheduler.backfill_depth, scheduler.order).
struct QueueSettings {
  int backfill_depth = 64;  // >= 1
  QueueOrder order = QueueOrder::kArrival;
};

struct QueuePolicyInfo {
  std::string_view name;
  std::string_view summary;
  bool takes_order = false;  // scheduler.order applies; other policies keep arrival order
  std::unique_ptr<QueuePolicy> (*make)(const QueueSettings& settings);
};

// Every entry, in listing order.
const std::vector<QueuePolicyInfo>& queue_policies();
// The entry named `name`, or nullptr.
const QueuePolicyInfo* find_queue_policy(std::string_view name);
// Every name of the table, in listing order, for messages (join_names).
std::vector<std::string> queue_policy_names();

}  // namespace gpumux
