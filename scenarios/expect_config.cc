#include "scenarios/expect_config.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "sim/base/input_error.h"

namespace gpumux {

std::vector<ExpectBound> parse_expect(JsonObject& root) {
  std::vector<ExpectBound> out;
  if (!root.has("expect")) {
    root.allow("expect");
    return out;
  }
  JsonObject expect = root.object("expect");
  const nlohmann::json& raw = root.raw("expect");
  constexpr double kHuge = std::numeric_limits<double>::max();
  for (const auto& [name, value] : raw.items()) {
    JsonObject b = expect.object(name);
    ExpectBound bound;
    bound.metric = name;
    bound.where = expect.where(name);
    if (b.has("min")) bound.min = b.required_number("min", -kHuge, kHuge);
    if (b.has("max")) bound.max = b.required_number("max", -kHuge, kHuge);
    bound.note = b.optional_string("note", "");
    b.allow("min");
    b.allow("max");
    b.finish();
    if (!bound.min && !bound.max) {
      throw InputError(bound.where, name,
                       "a bound needs \"min\", \"max\" or both, e.g. {\"max\": 0}");
    }
    if (bound.min && bound.max && *bound.min > *bound.max) {
      throw InputError(bound.where, name, "min is above max: no value can hold");
    }
    out.push_back(std::move(bound));
  }
  expect.finish();
  return out;
}

nlohmann::json expect_echo(const std::vector<ExpectBound>& bounds) {
  nlohmann::json echo = nlohmann::json::object();
  for (const auto& b : bounds) {
    nlohmann::json& e = echo[b.metric];
    e["min"] = b.min ? nlohmann::json(*b.min) : nlohmann::json(nullptr);
    e["max"] = b.max ? nlohmann::json(*b.max) : nlohmann::json(nullptr);
    if (!b.note.empty()) e["note"] = b.note;
  }
  return echo;
}

}  // namespace gpumux
