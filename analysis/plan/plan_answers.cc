#include "analysis/plan/plan_answers.h"

#include "models/registry.h"

namespace gpumux {

const PlanModelResult* met_baseline(const PlanResult& r) {
  for (const auto& m : r.models) {
    if (capabilities_of(m.model).savings_baseline && m.met) return &m;
  }
  return nullptr;
}

std::vector<SeedSize> seed_sizes(const PlanResult& r, const PlanModelResult& m) {
  std::vector<SeedSize> out;
  for (std::size_t k = 0; k < r.seeds.size(); ++k) {
    SeedSize s;
    s.seed = r.seeds[k];
    const PlanProbe* prev = nullptr;
    for (const auto& p : m.probes) {
      if (p.runs[k].met) {
        s.nodes = p.nodes;
        s.exact = p.size == 1 || (prev && prev->size == p.size - 1 && !prev->runs[k].met);
        break;
      }
      prev = &p;
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace gpumux
