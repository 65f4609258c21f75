// The built-in device profiles as a JSON array in the scenario device schema, made from the
// table of rows in builtin_devices.cc.
#pragma once

#include <nlohmann/json.hpp>

namespace gpumux {

nlohmann::json builtin_devices_json();

}  // namespace gpumux
