#include "analysis/metrics/json_path.h"

#include <string>

namespace gpumux {

const nlohmann::json* json_at_path(const nlohmann::json& j, std::string_view path) {
  const nlohmann::json* node = &j;
  while (!path.empty()) {
    const std::size_t dot = path.find('.');
    const std::string key(path.substr(0, dot));
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return node;
}

}  // namespace gpumux
