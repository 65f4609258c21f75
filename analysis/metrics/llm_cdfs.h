// One LLM endpoint's TTFT and TPOT distributions as CDF points, for charts (the fleet plan's
// report). summary.json keeps percentiles only; these come with the run's report
// (RunReport::llm_cdfs), never in its files, so outputs stay as they were.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpumux {

struct LlmEndpointCdfs {
  std::string id;
  // (ms, share of its served requests at or below) at the upper edge of every occupied 1%-wide
  // histogram bin (sim/services/latency_histogram.h), in increasing ms; empty when it served
  // nothing.
  std::vector<std::pair<double, double>> ttft_ms, tpot_ms;
};

}  // namespace gpumux
