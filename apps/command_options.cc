#include "apps/command_options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "sim/base/input_error.h"
#include "sim/base/integer_text.h"
#include "sim/base/json_fields.h"

namespace gpumux {

CLI::Validator integer_in(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string { return unsigned_text_error(text, min, max); },
      min == 0   ? "NON-NEGATIVE"
      : min == 1 ? "POSITIVE"
                 : "INTEGER");
}

CLI::Validator non_negative(std::uint64_t max) { return integer_in(0, max); }

CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        // CLI11's Range and NonNegativeNumber compare with < and >, which NaN passes; strtod
        // reads "nan", "inf" and "1e999" (as infinity) alike.
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end != text.c_str() && !std::isfinite(value)) {
          return "expected a finite number, got '" + text + "'";
        }
        return "";
      },
      "");
}

void check_output_paths_differ(const std::string& file_option, const std::string& file,
                               const std::string& folder_option, const std::string& folder) {
  if (file.empty() || folder.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path f = fs::weakly_canonical(fs::absolute(file), ec);
  const fs::path d = fs::weakly_canonical(fs::absolute(folder), ec);
  const auto [fi, di] = std::mismatch(f.begin(), f.end(), d.begin(), d.end());
  if (fi == f.end()) {  // the folder is the file's path or lies under it
    throw InputError(file_option + " " + file, "",
                     "clashes with " + folder_option + " " + folder +
                         " (the same path): give each output its own path");
  }
}

CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "expected a non-empty value, got ''" : "";
      },
      "");
}

void add_scenario_options(CLI::App& sub, ScenarioArgs& a) {
  sub.add_option("scenario", a.scenario,
                 "scenario JSON file (docs/scenario-format.md \"Scenario format\")")
      ->required();
  sub.add_option("--set", a.sets,
                 "override a scenario value before validation, as path=value; the path is "
                 "dotted (sharing.model) or a JSON pointer (/cluster/node_groups/0/nodes); the "
                 "value is JSON, or a string. Repeatable.");
  sub.add_option("--seed", a.seed, "override the scenario's seed")
      ->check(non_negative(kMaxScenarioSeed));
}

ScenarioOverrides overrides_of(const ScenarioArgs& a) {
  ScenarioOverrides o;
  o.sets = a.sets;
  o.seed = a.seed;
  o.out_dir = a.out_dir;
  return o;
}

void add_check_invariants_flag(CLI::App& sub, bool& flag) {
  sub.add_flag("--check-invariants", flag,
               "check the simulation's invariants as it runs (work conserved, memory within "
               "capacity, no over-allocation, time never backwards, one terminal state per "
               "job); a break is an internal error, exit 1 (README.md \"Exit codes\"); also on "
               "when GPUMUX_CHECK_INVARIANTS=1");
}

int threads_or_hardware(int threads) {
  return threads > 0 ? threads
                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<ModelRequest> model_requests(const std::vector<std::string>& names,
                                         const std::vector<std::string>& assignments) {
  std::vector<ModelRequest> models;
  for (const auto& name : names) models.push_back({name, std::nullopt});
  for (const auto& assignment : assignments) {
    const auto eq = assignment.find('=');
    const std::string where = "--model-params " + assignment;
    if (eq == std::string::npos || eq == 0) {
      throw InputError(where, "", "expected NAME=JSON, e.g. mps='{\"admission\": \"peak\"}'");
    }
    const std::string name = assignment.substr(0, eq);
    nlohmann::json params;
    try {
      params = parse_json_text(assignment.substr(eq + 1), where);
    } catch (const InputError& e) {
      throw InputError(where, name, std::string("not valid JSON: ") + e.what());
    }
    if (!params.is_object()) throw InputError(where, name, "expected a JSON object");
    auto it = std::find_if(models.begin(), models.end(),
                           [&](const ModelRequest& m) { return m.name == name; });
    if (it == models.end()) {
      throw InputError(where, name, "model not in --models");
    }
    if (it->params) throw InputError(where, name, "parameters given twice");
    it->params = params;
  }
  return models;
}

}  // namespace gpumux
