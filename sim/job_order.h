// The order of jobs by id, used wherever a rule says "then by job id" (the greedy queue's ties,
// trace.arrival_batches' ranking).
#pragma once

#include <string_view>

namespace gpumux {

// Three-way comparison of two job ids: two ids made only of decimal digits compare as numbers
// ("9" < "10"; leading zeros ignored, then the shorter spelling first), anything else compares
// byte by byte. Returns <0, 0 or >0.
int compare_job_ids(std::string_view a, std::string_view b);

}  // namespace gpumux
