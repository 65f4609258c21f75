// The queue policies by the names scenario files use (scheduler.queue), in one table
// (registry.cc; a Registry, sim/base/registry.h): each entry's name, one line of what it does,
// whether it takes a queue order (scheduler.order), the parameters it reads from
// `scheduler.params` and its factory. `gpumux models`, the scenario parser (which resolves the
// entry once) and the Scheduler read this table; it is the only list of queue policy names.
//
// To add a policy: implement QueuePolicy (queue_policy.h) in its own files in this folder and
// add one line to the table in registry.cc.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "sim/base/json_fields.h"
#include "sim/base/parameter.h"
#include "sim/base/registry.h"
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
  std::unique_ptr<QueuePolicy> (*make)(const QueueSettings& settings,
                                       const ParameterSet& params) = nullptr;
  // Reads the entry's parameters from `scheduler.params` (marking its keys as known) and
  // returns their declared echo and values; null: it has none.
  ParameterSet (*read_params)(JsonObject& params) = nullptr;
};

// Every entry, in listing order.
const Registry<QueuePolicyInfo>& queue_policies();

// Reads `info`'s parameters from `params` (the entry's read_params, or none).
ParameterSet read_queue_params(const QueuePolicyInfo& info, JsonObject& params);

}  // namespace gpumux
