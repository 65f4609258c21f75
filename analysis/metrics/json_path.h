// A value inside a JSON document by dotted path ("llm.ttft_ms.p99"): how per-endpoint rows of
// summary.json are read by the selector grammar and by the fleet planner.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace gpumux {

// The value at `path` (dotted) below `j`, or null when a step is missing or not an object.
const nlohmann::json* json_at_path(const nlohmann::json& j, std::string_view path);

}  // namespace gpumux
