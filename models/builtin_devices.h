// The built-in device profiles as a JSON array in the scenario device schema.
#pragma once

#include <string_view>

namespace gpumux {

std::string_view builtin_devices_json();

}  // namespace gpumux
