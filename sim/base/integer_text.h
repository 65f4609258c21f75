// Checking an unsigned integer given as text (a command-line seed or count) before a parser
// that would take "" as "not given", wrap "-1" to 2^64 - 1 or clamp a longer number.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

namespace gpumux {

// "" when `text` is an integer in [min, max] written in decimal digits alone; otherwise what is
// wrong, e.g. "expected a non-negative integer (at most 18446744073709551615), got ''".
inline std::string unsigned_text_error(const std::string& text, std::uint64_t min,
                                       std::uint64_t max) {
  std::string expected = min == 0   ? "a non-negative integer"
                         : min == 1 ? "a positive integer"
                                    : "an integer of at least " + std::to_string(min);
  expected = "expected " + expected + " (at most " + std::to_string(max) + "), got '" + text + "'";
  if (text.empty()) return expected + " (an empty value)";
  if (text.find_first_not_of("0123456789") != std::string::npos) return expected;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > max || value < min) {
    return expected;
  }
  return "";
}

}  // namespace gpumux
