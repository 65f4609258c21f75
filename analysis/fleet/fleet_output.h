// What `gpumux plan --fleet` prints and writes: the answers side by side, each answer's GPU map
// and per-endpoint predictions, fleet.json, and per model a scenario `gpumux run` re-runs.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/fleet/fleet_plan.h"

namespace gpumux {

// An endpoint with where it runs: "chat-a (2g.20gb)", "chat-a (45 % memory, 50 % threads)".
std::string fleet_placed_text(const FleetEndpoint& e, FleetForm form);
// Its headroom: ">=x2" (met at every step), "x1.5" (met at 1.5, missed at the next), "<x1.25"
// (missed at the first step).
std::string fleet_headroom_text(const FleetEndpoint& e);

// What a scenario endpoint's numbers assume, as its first replica ran in the first answer's
// whole-fleet run: its traffic and token lengths, engine settings and performance model.
struct FleetAssumption {
  std::string id;         // the scenario's endpoint
  std::string text;       // one line: "Llama-3.1-8B; traffic: ...; engine: ...; efficiencies: ..."
  nlohmann::json detail;  // {llm_model, load, engine, efficiencies_from, calibration}
};
std::vector<FleetAssumption> fleet_assumptions(const FleetResult& r);

void print_fleet_table(const FleetResult& r, std::ostream& out);
nlohmann::json fleet_to_json(const FleetResult& r);

// Writes DIR/fleet/<model>/scenario.json and trace.csv for every answer into `dir` (a folder
// being built). The scenario's request-trace paths are rewritten relative to where it is
// written (`final_dir`/fleet/<model>: the folder once committed), so `gpumux run` finds them.
void write_fleet_scenarios(const FleetResult& r, const std::string& dir,
                           const std::string& final_dir);

}  // namespace gpumux
