// The queued job-seconds by reason (summary.json metrics.queued_by_reason,
// analysis/metrics/queue_reason_metrics.h) as people read them: one line of `gpumux run`'s
// summary and the report's "Why jobs queued" section.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/report/report_inputs.h"

namespace gpumux {

// "gpus 62.1 %, gang 30.0 %, memory 7.9 % of 1.23e+05 job-s": the reasons with a share that
// shows at one decimal, largest first (ties in the reasons' order); empty when the family is
// missing or nothing queued.
std::string queued_by_reason_text(const nlohmann::json& metrics);

// The report's section: per reason, each variant's share of queued job-seconds (its first
// seed's run, as the key metrics), and the total. A run whose summary predates the family says
// so in its column; a run where nothing queued shows n/a.
std::string queue_reason_section(const std::vector<ReportVariant>& variants);

}  // namespace gpumux
