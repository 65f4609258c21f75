// The parsers of a scenario's sections, one file each (scenarios/sections/<section>_section.cc);
// parse_scenario (scenarios/scenario.cc) calls them in this order. The `services` and `expect`
// sections have theirs beside the types they fill (scenarios/service_config.h,
// scenarios/expect_config.h).
//
// Contract of every parser: it reads its section (`root` is the scenario's top-level object,
// `cluster` the `cluster` object), fills its fields of `s`, writes the section's echo with
// every default filled in to s.resolved["<section>"], and marks every key it reads as known
// (an unknown key is then an InputError naming its JSON pointer). Relative paths are resolved
// against `base_dir`, the scenario file's folder. A section may read what earlier sections
// filled (the scheduler checks its placement against the model and the nodes).
#pragma once

#include <string>

#include "scenarios/scenario.h"
#include "sim/base/json_fields.h"

namespace gpumux::scenario_sections {

// `path` relative to `base_dir` (unchanged when absolute or when either is empty).
std::string resolve_path(const std::string& base_dir, const std::string& path);

void parse_cluster(Scenario& s, JsonObject& cluster, const std::string& base_dir);
void parse_sharing(Scenario& s, JsonObject& root, const std::string& base_dir);
void parse_scheduler(Scenario& s, JsonObject& root);
void parse_trace(Scenario& s, JsonObject& root, const std::string& base_dir);
void parse_outputs(Scenario& s, JsonObject& root);
void parse_faults(Scenario& s, JsonObject& root);
void parse_limits(Scenario& s, JsonObject& root);

}  // namespace gpumux::scenario_sections
