#include "sim/placement/fgd/fragmentation.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gpumux::packing {

TypicalPods compute_typical_pods(const std::vector<PodSpec>& workload, const GpuModelTable& models,
                                 double popularity_pct) {
  using Key = std::tuple<std::int64_t, int, int, std::string>;
  std::map<Key, std::size_t> index;  // ordered map: deterministic regardless of hashing
  std::vector<TypicalPod> groups;
  for (const auto& pod : workload) {
    PodDemand d = make_demand(pod, models);
    std::string spec = d.num_gpus > 0 ? gpu_spec_text(pod) : std::string();
    Key key{d.score_cpu_milli, d.gpu_milli, d.num_gpus, spec};
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) groups.push_back({d, spec, 0});
    ++groups[it->second].count;
  }
  return select_typical_pods(std::move(groups), popularity_pct);
}

TypicalPods select_typical_pods(std::vector<TypicalPod> groups, double popularity_pct) {
  // Keys are distinct, so this order is total: the result does not depend on the input order.
  std::sort(groups.begin(), groups.end(), [](const TypicalPod& a, const TypicalPod& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.demand.score_cpu_milli != b.demand.score_cpu_milli) {
      return a.demand.score_cpu_milli > b.demand.score_cpu_milli;
    }
    if (a.demand.gpu_milli != b.demand.gpu_milli) return a.demand.gpu_milli > b.demand.gpu_milli;
    if (a.demand.num_gpus != b.demand.num_gpus) return a.demand.num_gpus > b.demand.num_gpus;
    return a.gpu_spec > b.gpu_spec;
  });
  TypicalPods out;
  for (const auto& g : groups) out.total_count += g.count;
  const double expected = popularity_pct * static_cast<double>(out.total_count) / 100.0;
  std::size_t i = 0;
  while (i < groups.size() && static_cast<double>(out.kept_count) < expected) {
    out.kept_count += groups[i].count;
    ++i;
  }
  groups.resize(i);
  out.pods = std::move(groups);
  return out;
}

FragmentationModel::FragmentationModel(const TypicalPods& typical, int num_models)
    : per_model_(static_cast<std::size_t>(num_models) + 1),
      denominator_(typical.kept_count > 0 ? typical.kept_count : 1) {
  for (int m = -1; m < num_models; ++m) {
    NodeState probe;
    probe.model = m;
    PerModel& pm = per_model_[static_cast<std::size_t>(m + 1)];
    for (const auto& tp : typical.pods) {
      const PodDemand& d = tp.demand;
      if (d.gpu_milli == 0 || !model_accessible(probe, d)) {
        pm.whole_count += tp.count;
      } else {
        pm.entries.push_back({d.score_cpu_milli, d.gpu_milli, d.num_gpus, tp.count});
      }
    }
  }
}

std::int64_t FragmentationModel::units(const NodeState& n) const {
  const std::int64_t idle = n.gpu_left_total();
  if (idle == 0) return 0;
  const PerModel& pm = per_model_[static_cast<std::size_t>(n.model + 1)];
  std::int64_t u = pm.whole_count * idle;
  for (const Entry& e : pm.entries) {
    int big_enough = 0;
    std::int64_t too_small = 0;
    for (int g = 0; g < n.num_gpus; ++g) {
      const std::int32_t left = n.gpu_left[static_cast<std::size_t>(g)];
      if (left >= e.gpu_milli) {
        ++big_enough;
      } else {
        too_small += left;
      }
    }
    const bool hostable = big_enough >= e.num_gpus && n.cpu_left >= e.cpu_milli;
    u += e.count * (hostable ? too_small : idle);
  }
  return u;
}

}  // namespace gpumux::packing
