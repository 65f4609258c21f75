// The scenario's `expect` block: bounds on the run's metrics, checked by `gpumux check` (and
// reported by `gpumux run`). Each key is a metric name (docs/checks.md "Checks"), each value
// {"min": NUMBER, "max": NUMBER, "note": TEXT} with at least one of min and max (inclusive,
// min <= max) and an optional note saying why the bound is what it is.
//
// Only the shape is checked here; whether a name is a metric is the analysis library's call
// (analysis/metrics/expectations.h), which knows the summary.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/json_fields.h"

namespace gpumux {

struct ExpectBound {
  std::string metric;  // as written in the scenario
  std::optional<double> min, max;
  std::string note;
  std::string where;  // "file#/expect/<metric>", for errors about this bound
};

// Parses root's `expect` (absent: no bounds), in metric-name order. Throws InputError.
std::vector<ExpectBound> parse_expect(JsonObject& root);

// The bounds as the scenario echo holds them: {metric: {min, max[, note]}}.
nlohmann::json expect_echo(const std::vector<ExpectBound>& bounds);

}  // namespace gpumux
