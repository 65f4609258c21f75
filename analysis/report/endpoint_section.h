// The report's per-endpoint table: each inference service (endpoint) of the runs on its own
// numbers, as per-endpoint bounds and objectives read them (analysis/metrics/endpoint_selector.h):
// its class, and per variant (its first seed's run) its latency p99, or an
// LLM endpoint's TTFT p99 / TPOT p99.
#pragma once

#include <string>
#include <vector>

#include "analysis/report/report_inputs.h"

namespace gpumux {

// The most endpoints the table lists; the rest are counted under it.
inline constexpr std::size_t kMaxReportEndpoints = 50;

// The table (HTML), or "" when no run has two services or more (one service is the pooled
// table). Endpoints in the order of the first variant that has them, then those only later
// variants have.
std::string endpoint_section(const std::vector<ReportVariant>& variants);

}  // namespace gpumux
