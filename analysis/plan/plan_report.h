// What `gpumux plan` prints: the table (--format table) and the JSON object (--format json)
// of a PlanResult (docs/planning.md "Capacity planning", "Output"). Both depend on the result
// alone, so they are the same for any thread count.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <vector>

#include "analysis/plan/plan.h"

namespace gpumux {

// Per model: nodes, GPUs, saving against exclusive, utilization, latency, kills, one size
// below; then each objective's value at the answer and one size below; then the assumptions.
void print_plan_table(const PlanResult& result, std::ostream& out);

// The same as one JSON object (keys listed in docs/planning.md).
nlohmann::json plan_to_json(const PlanResult& result);

// Plans of one request at several loads (--load): {"loads": [factor...], "plans": [plan_to_json
// per load], "gpus_by_load": [{"model", "gpus": [per load, null when not met]}]}.
nlohmann::json plans_by_load_to_json(const std::vector<PlanResult>& results);

// The GPUs-vs-load table: one row per model, one column per load.
void print_load_table(const std::vector<PlanResult>& results, std::ostream& out);

}  // namespace gpumux
