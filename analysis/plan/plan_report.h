// What `gpumux plan` prints as text: the table (--format table) of a PlanResult, and the table
// of a plan over several loads (docs/planning.md "Capacity planning", "Output"); the JSON form
// (--format json, plan.json) is plan_json.h's. Both depend on the result alone, so they are the
// same for any thread count.
#pragma once

#include <ostream>
#include <vector>

#include "analysis/plan/plan.h"

namespace gpumux {

// Per model: nodes, GPUs, saving against exclusive, utilization, latency, kills, one size
// below; then each objective's value at the answer and one size below; then the assumptions.
void print_plan_table(const PlanResult& result, std::ostream& out);

// The GPUs-vs-load table: one row per model, one column per load.
void print_load_table(const std::vector<PlanResult>& results, std::ostream& out);

}  // namespace gpumux
