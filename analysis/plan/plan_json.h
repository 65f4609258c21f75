// A plan's result as plan.json holds it (docs/planning.md "Outputs"), and the results of a plan
// over several loads (--load). The text table is plan_report.h's.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "analysis/plan/plan.h"

namespace gpumux {

nlohmann::json plan_to_json(const PlanResult& result);

nlohmann::json plans_by_load_to_json(const std::vector<PlanResult>& results);

}  // namespace gpumux
