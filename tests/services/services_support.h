// Runs small scenarios with inference services in-process and reads metrics.requests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/run/run.h"
#include "scenarios/scenario.h"

namespace gpumux::testing {

namespace fs = std::filesystem;

// A fresh folder holding `files` (name -> text); removed by the caller or at exit of the test.
inline fs::path write_case(const std::string& name,
                           std::initializer_list<std::pair<std::string, std::string>> files) {
  const fs::path d =
      fs::temp_directory_path() / ("gpumux_services_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  for (const auto& [file, text] : files) std::ofstream(d / file, std::ios::binary) << text;
  return d;
}

// A one-node scenario of `gpus` GPUs of `device` under `sharing` (a JSON object text), reading
// trace.csv; `extra` is appended inside the top-level object (e.g. `, "services": {...}`).
inline std::string scenario_json(const std::string& device, int gpus, const std::string& sharing,
                                 const std::string& extra = "") {
  return R"({"cluster": {"node_groups": [{"name": "g", "nodes": 1, "gpus_per_node": )" +
         std::to_string(gpus) + R"(, "device": ")" + device + R"("}]}, "sharing": )" + sharing +
         R"(, "trace": {"file": "trace.csv"})" + extra + "}";
}

// Runs scenario.json in `dir` without writing outputs and returns the summary.
inline nlohmann::json run_case(const fs::path& dir, const ScenarioOverrides& overrides = {}) {
  const Scenario s = load_scenario((dir / "scenario.json").string(), overrides);
  RunOptions options;
  options.write_outputs = false;
  return run_scenario(s, options).summary;
}

}  // namespace gpumux::testing
