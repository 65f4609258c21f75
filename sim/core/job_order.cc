#include "sim/core/job_order.h"

#include <algorithm>

namespace gpumux {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string_view strip_zeros(std::string_view s) {
  const auto first = s.find_first_not_of('0');
  return first == std::string_view::npos ? std::string_view() : s.substr(first);
}

}  // namespace

int compare_job_ids(std::string_view a, std::string_view b) {
  if (all_digits(a) && all_digits(b)) {
    const std::string_view x = strip_zeros(a), y = strip_zeros(b);
    if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
    if (const int c = x.compare(y); c != 0) return c < 0 ? -1 : 1;
    // Same number: a deterministic order between spellings ("7" before "007").
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    return 0;
  }
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

JobIdNumber::JobIdNumber(std::string_view id) {
  if (!all_digits(id)) return;
  const std::string_view digits = strip_zeros(id);
  if (digits.size() > 18) return;  // 10^18 - 1 < 2^63: larger ones compare by text
  for (char c : digits) value = value * 10 + static_cast<std::uint64_t>(c - '0');
  length = id.size();
}

}  // namespace gpumux
