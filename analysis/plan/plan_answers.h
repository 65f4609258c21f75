// What the text table and plan.json both read of a plan's result: the savings baseline's answer
// and each seed's own smallest size.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/plan/plan.h"

namespace gpumux {

// The savings baseline's result (exclusive) when it met the objectives at some size, or null.
const PlanModelResult* met_baseline(const PlanResult& r);

// Per seed: the smallest size run that met the objectives for that seed (an upper bound on the
// seed's own answer), and whether the size below it was run and failed for it (then exact).
struct SeedSize {
  std::uint64_t seed = 0;
  int nodes = 0;  // 0: no size run met for this seed
  bool exact = false;
};
std::vector<SeedSize> seed_sizes(const PlanResult& r, const PlanModelResult& m);

}  // namespace gpumux
