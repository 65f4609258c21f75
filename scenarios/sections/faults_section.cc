// The `faults` section: the fatal-fault rate of running processes.
#include "scenarios/sections/sections.h"

#include "sim/base/json_fields.h"

namespace gpumux::scenario_sections {

void parse_faults(Scenario& s, JsonObject& root) {
  if (root.has("faults")) {
    JsonObject f = root.object("faults");
    s.fatal_faults_per_gpu_hour = f.optional_number("fatal_per_gpu_hour", 0.0, 0.0, 1e6);
    f.finish();
  } else {
    root.allow("faults");
  }
  s.resolved["faults"] = {{"fatal_per_gpu_hour", s.fatal_faults_per_gpu_hour}};
}

}  // namespace gpumux::scenario_sections
