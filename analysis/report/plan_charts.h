// The capacity plan's charts for the HTML report, drawn from plan.json alone (analysis/plan/
// plan_report.h writes it): per objective, its value against cluster size for every model and
// placement probed (the knee), the objective's bound as a line and each model's answer marked;
// for a plan over several loads (--load), each model's GPUs against the load.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "analysis/report/svg_chart.h"

namespace gpumux {

// One chart per objective the user gave, and the JCT guard (the always-applied counts are
// left out: they are 0 or failed at every size shown in the table). A series per model,
// MIG layout and placement searched; searches stopped after one size (rejections no size
// cures) draw nothing, and sizes above twice the largest answer are left out (the doubling's
// flat tail). Precondition: `plan` is one
// plan's object (`models` an array); missing or non-numeric values are skipped.
std::vector<ChartSpec> plan_knee_charts(const nlohmann::json& plan);

// GPUs of each model's answer against the load factor, from a by-load plan.json
// ({"loads", "gpus_by_load"}); a model not met at a load has no point there.
ChartSpec plan_load_chart(const nlohmann::json& by_load);

}  // namespace gpumux
