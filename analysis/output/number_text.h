// Numbers as the printed tables show them, and "n/a" for a summary value that is null (an
// empty set: a percentile of no jobs, a share of no time), never 0.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace gpumux {

// Fixed notation with `digits` decimals.
std::string fixed_text(double x, int digits);

// A summary value times `scale` with `digits` decimals, or "n/a" when it is null.
std::string fixed_or_na(const nlohmann::json& value, int digits, double scale = 1.0);

// A value in a check table: integers without decimals, others with 6 significant digits
// (fixed, without exponent, up to 1e15).
std::string number_text(double x);

// A value in a CSV (compare.csv, sweep.csv, the report's data files): integers without
// decimals, others in the shortest text that reads back as the same double.
std::string csv_number(double x);

// A text field in a CSV (RFC 4180): quoted when it holds a comma, a quote or a line break, its
// quotes doubled; otherwise as it is.
std::string csv_field(const std::string& text);

// One declared model parameter of summary.json (scenario.sharing.parameters[i]) as the tables
// print it: "name = value unit  (source)"; a switch's or a choice's value in words
// ("work_conserving = false  (default ...)"), never quoted.
std::string parameter_text(const nlohmann::json& parameter);

}  // namespace gpumux
