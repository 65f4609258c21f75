// The `limits` section: the simulated-time horizon.
#include "scenarios/sections/sections.h"

#include "sim/base/json_fields.h"

namespace gpumux::scenario_sections {

void parse_limits(Scenario& s, JsonObject& root) {
  nlohmann::json echo = nlohmann::json::object();
  if (root.has("limits")) {
    JsonObject l = root.object("limits");
    if (l.has("max_time_s")) {
      const double t = l.required_number("max_time_s", 0.0, 1e12);
      s.horizon = Time::from_seconds(t);
      echo["max_time_s"] = t;
    } else {
      l.allow("max_time_s");
    }
    l.finish();
  } else {
    root.allow("limits");
  }
  if (echo.empty()) echo["max_time_s"] = nullptr;
  s.resolved["limits"] = echo;
}

}  // namespace gpumux::scenario_sections
