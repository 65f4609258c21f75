// One layout of a fleet's endpoints simulated and judged, for `gpumux plan --fleet`
// (fleet_plan.h): the scenario of those GPUs (fleet_scenario.h) run in process under every
// seed, each endpoint held to the objectives that select it.
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/fleet/fleet_plan.h"
#include "analysis/fleet/fleet_scenario.h"
#include "analysis/metrics/llm_cdfs.h"
#include "analysis/plan/objective.h"

namespace gpumux {

// The number at a dotted path of `row`, NaN when it is missing or not a number.
double fleet_number_at(const nlohmann::json& row, const char* path);

// One layout's run: met or the first miss, and each endpoint's numbers and checks.
struct GroupRun {
  bool met = true;
  std::optional<FleetMiss> miss;
  std::map<std::string, FleetEndpoint> endpoints;     // by id: numbers and checks filled
  std::map<std::string, std::vector<double>> values;  // by id: objective values, in order
  std::map<std::string, double> kv_cache_use;         // by id: mean share of its cache in use
  std::map<std::string, nlohmann::json> engines;      // by id: the engine settings as resolved
  std::map<std::string, nlohmann::json> llm_echoes;   // by id: its whole `llm` echo
  std::map<std::string, double> busy_share;           // by id: engine busy / the run's span
  std::map<std::string, double> served;               // by id: requests served
  std::map<std::string, LlmEndpointCdfs> cdfs;        // by id: TTFT and TPOT CDFs
  nlohmann::json shared_gpus;                         // metrics.requests.llm_shared_gpus, or null
};

// `summary` (one run's) judged for `members`: each one's numbers, and each objective that
// selects it (by its parent endpoint's name or class) and whose metric it reports (a plain
// service no token metric) checked on its own requests.
GroupRun judge_group(const nlohmann::json& summary, const std::vector<Objective>& objectives,
                     const std::vector<FleetEndpointInfo>& members);

// Runs layouts; safe to call from several threads at once. Each run's trace goes to a file of
// its own in the scratch folder (`scratch_dir`, or with "" a temporary folder of its own,
// removed with it). Every seed (the base's seed, +1, ... `seeds` in all) must meet: the numbers
// kept are the first seed's, the objective values every seed's in order.
class GroupRunner {
 public:
  GroupRunner(const std::string& scratch_dir, const std::string& scenario_file, int seeds,
              const std::vector<Objective>& objectives);
  ~GroupRunner();
  GroupRunner(const GroupRunner&) = delete;
  GroupRunner& operator=(const GroupRunner&) = delete;

  GroupRun run(const FleetBase& base, const std::string& model,
               const std::vector<FleetGpuSettings>& layout);

 private:
  std::filesystem::path scratch_;
  bool owned_scratch_ = false;
  std::atomic<int> counter_{0};
  int seeds_ = 1;
  const std::vector<Objective>& objectives_;
};

}  // namespace gpumux
