// `gpumux plan --fleet --vary 'KEY=LO:HI [for SELECTOR]'` (docs/planning.md "LLM fleets"): how
// a fleet's answers move with one of their assumptions.
//
// KEY is a numeric setting of an endpoint's service, as the scenario writes it under
// services.by_id.<id>: llm.load.rate_scale (traffic), llm.load.target_rate_per_s,
// llm.load.prompt_tokens, llm.engine.max_num_seqs, llm.engine.max_num_batched_tokens, ... The
// plan is solved again, whole (replicas, search, verification), once with KEY held at LO and
// once at HI for every endpoint the selector picks (every endpoint without one), and each
// model's GPUs are set beside the plan's. Settings the planner chooses itself
// (llm.sharing, llm.engine.gpu_memory_utilization, llm.load.round_robin) are refused, as is a
// value the endpoint's scenario refuses (the error names the end).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/fleet/fleet_plan.h"
#include "analysis/metrics/endpoint_selector.h"

namespace gpumux {

struct FleetVary {
  std::string text;  // as given
  std::string key;   // under services.by_id.<id>, e.g. llm.load.rate_scale
  double low = 0.0;
  double high = 0.0;                          // low <= high
  std::optional<EndpointSelector> endpoints;  // none: every endpoint
};

// Reads `--vary` texts. Throws InputError naming the text for a malformed one (no '=', no ':',
// a bound that is not a finite number, LO > HI, a key that is not a dotted path of names), a key
// the planner sets itself, or the same key and selector given twice.
std::vector<FleetVary> parse_fleet_vary(const std::vector<std::string>& texts);

// One end: the value, and per answer of the plan (same order) its GPUs and whether it was met.
struct FleetVaryEnd {
  double value = 0.0;
  std::vector<int> gpus;
  std::vector<bool> met;
};

struct FleetVaryResult {
  FleetVary vary;
  std::vector<std::string> endpoints;  // the scenario's endpoints the key was set for
  FleetVaryEnd low, high;
};

// Solves `request` (whose plan is `plan`) at both ends of each range. Throws InputError naming
// the --vary text when a selector picks no endpoint or an end makes the scenario invalid.
std::vector<FleetVaryResult> run_fleet_vary(const FleetRequest& request, const FleetResult& plan,
                                            const std::vector<FleetVary>& vary,
                                            std::ostream* progress);

// Per range, each model's GPUs at LO, as planned and at HI ("n (not met)" where unmet).
void print_fleet_vary(const std::vector<FleetVaryResult>& results, const FleetResult& plan,
                      std::ostream& out);

// [{vary, key, low, high, endpoints, answers: [{model, planned: {gpus, met}, low: {gpus, met},
// high: {gpus, met}}]}].
nlohmann::json fleet_vary_json(const std::vector<FleetVaryResult>& results,
                               const FleetResult& plan);

}  // namespace gpumux
