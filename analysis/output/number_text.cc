#include "analysis/output/number_text.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

namespace gpumux {

std::string fixed_text(double x, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << x;
  return o.str();
}

std::string fixed_or_na(const nlohmann::json& value, int digits, double scale) {
  if (value.is_null()) return "n/a";
  return fixed_text(scale * value.get<double>(), digits);
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_number(double x) {
  if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", x);
    return buffer;
  }
  return nlohmann::json(x).dump();
}

std::string number_text(double x) {
  char buffer[64];
  if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", x);
  } else if (std::isfinite(x) && std::fabs(x) >= 1e5 && std::fabs(x) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.1f", x);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.6g", x);
  }
  return buffer;
}

std::string parameter_text(const nlohmann::json& parameter) {
  const nlohmann::json& value = parameter["value"];
  const std::string unit = parameter["unit"].get<std::string>();
  return parameter["name"].get<std::string>() + " = " +
         (value.is_string() ? value.get<std::string>() : value.dump()) +
         (unit.empty() ? "" : " " + unit) + "  (" + parameter["source"].get<std::string>() + ")";
}

}  // namespace gpumux
