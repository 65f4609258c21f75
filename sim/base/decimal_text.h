// A finite decimal number given as text in full (an option's LO:HI ends), parsed the one way
// every command does: the whole text must be the number.
#pragma once

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

namespace gpumux {

// The number `text` writes in full ("0.5", "1e3", "-2"), or nothing for "", trailing
// characters ("1x"), a non-number, or a value that is not finite ("inf", "nan", "1e999").
inline std::optional<double> finite_number_text(const std::string& text) {
  std::size_t used = 0;
  double x = 0.0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || used != text.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

}  // namespace gpumux
