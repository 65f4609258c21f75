// How the derived library and its summary write numbers (derive.h): fixed decimals, and the
// decimals a quantum needs. Shared by profile_library.cc and derive_summary.cc.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace gpumux::memory_derive {

inline std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  // "-0.00" (a tiny negative rounded away) reads as 0.
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

inline int quantum_decimals(double quantum) {
  int d = 0;
  while (d < 6 &&
         std::fabs(quantum * std::pow(10.0, d) - std::round(quantum * std::pow(10.0, d))) > 1e-9) {
    ++d;
  }
  return d;
}

}  // namespace gpumux::memory_derive
