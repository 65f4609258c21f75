// The order of jobs by id, used wherever a rule says "then by job id" (the greedy queue's ties,
// trace.arrival_batches' ranking).
#pragma once

#include <cstdint>
#include <string_view>

namespace gpumux {

// Three-way comparison of two job ids: two ids made only of decimal digits compare as numbers
// ("9" < "10"; leading zeros ignored, then the shorter spelling first), anything else compares
// byte by byte. Returns <0, 0 or >0.
int compare_job_ids(std::string_view a, std::string_view b);

// A job id's order key, computed once for ids a queue compares many times: a digits-only id of
// at most 18 significant digits keeps its value and its length, and two such keys compare as
// (value, length), which is compare_job_ids' order for them, without reading the text. Any
// other id has no number (numbered() false) and is compared by its text.
struct JobIdNumber {
  JobIdNumber() = default;
  explicit JobIdNumber(std::string_view id);
  bool numbered() const { return length != 0; }
  std::uint64_t value = 0;
  std::uint64_t length = 0;  // the id's length, leading zeros included; 0: not numbered
};

// compare_job_ids(a, b), given the ids' keys as well (a fast path when both are numbered).
inline int compare_job_ids(const JobIdNumber& ka, std::string_view a, const JobIdNumber& kb,
                           std::string_view b) {
  if (ka.numbered() && kb.numbered()) {
    if (ka.value != kb.value) return ka.value < kb.value ? -1 : 1;
    if (ka.length != kb.length) return ka.length < kb.length ? -1 : 1;
    return 0;
  }
  return compare_job_ids(a, b);
}

}  // namespace gpumux
