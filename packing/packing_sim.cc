#include "packing/packing_sim.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gpumux::packing {
namespace {

GpuModelTable build_models(const std::vector<NodeSpec>& nodes) {
  GpuModelTable t;
  for (const auto& n : nodes) {
    if (!n.gpu_model.empty()) t.intern(n.gpu_model, "node '" + n.name + "'");
  }
  return t;
}

std::vector<NodeState> build_nodes(const std::vector<NodeSpec>& specs, const GpuModelTable& t) {
  std::vector<NodeState> out;
  out.reserve(specs.size());
  for (const auto& s : specs) out.push_back(make_node_state(s, t));
  return out;
}

double round2(double x) { return std::nearbyint(x * 100.0) / 100.0; }

}  // namespace

PackingSimulator::PackingSimulator(const std::vector<NodeSpec>& nodes,
                                   const std::vector<PodSpec>& workload, Policy policy,
                                   std::uint64_t seed, TieBreak tie_break)
    : rng_(seed),
      models_(build_models(nodes)),
      nodes_(build_nodes(nodes, models_)),
      typical_(compute_typical_pods(workload, models_)),
      frag_(typical_, static_cast<int>(models_.names().size())),
      node_version_(nodes_.size(), 1),
      chooser_(policy, tie_break, nodes_.size(), rng_) {
  node_frag_units_.reserve(nodes_.size());
  for (const auto& n : nodes_) {
    node_frag_units_.push_back(frag_.units(n));
    frag_units_total_ += node_frag_units_.back();
    total_gpus_ += n.num_gpus;
  }
}

std::optional<Placement> PackingSimulator::schedule(const PodSpec& pod) {
  return schedule(demand_of(pod));
}

std::optional<Placement> PackingSimulator::schedule(const PodDemand& pod) {
  const NodeChoice choice =
      chooser_.choose(nodes_, node_frag_units_, node_version_, frag_, pod, {}, rng_);
  if (choice.node < 0) return std::nullopt;
  Placement out;
  apply(choice.node, pod, choice.share_gpu, out);
  return out;
}

void PackingSimulator::apply(int n, const PodDemand& pod, int share_gpu, Placement& out) {
  NodeState& node = nodes_[static_cast<std::size_t>(n)];
  out.node = n;
  node.cpu_left -= pod.cpu_milli;
  node.memory_left_mib -= pod.memory_mib;
  if (pod.is_gpu()) {
    if (pod.is_share()) {
      node.gpu_left[static_cast<std::size_t>(share_gpu)] -= pod.gpu_milli;
      out.gpus[0] = static_cast<std::int8_t>(share_gpu);
      out.num_gpus = 1;
    } else {
      out.num_gpus = whole_gpus(node, pod.num_gpus, kAllGpus, out.gpus);
      for (int i = 0; i < out.num_gpus; ++i) {
        node.gpu_left[static_cast<std::size_t>(out.gpus[static_cast<std::size_t>(i)])] = 0;
      }
    }
    const std::size_t tag = pod.is_share() ? 0 : static_cast<std::size_t>(pod.num_gpus);
    if (node.affinity[tag]++ == 0) ++node.affinity_kinds;
    allocated_gpu_milli_ += pod.total_gpu_milli();
  }
  const std::int64_t units = frag_.units(node);
  frag_units_total_ += units - node_frag_units_[static_cast<std::size_t>(n)];
  node_frag_units_[static_cast<std::size_t>(n)] = units;
  ++node_version_[static_cast<std::size_t>(n)];
}

std::vector<std::size_t> inflation_sequence(const std::vector<PodSpec>& pods,
                                            std::int64_t cluster_gpu_milli, double ratio,
                                            PackRng& rng) {
  std::vector<std::size_t> by_name(pods.size());
  std::iota(by_name.begin(), by_name.end(), std::size_t{0});
  std::stable_sort(by_name.begin(), by_name.end(),
                   [&](std::size_t a, std::size_t b) { return pods[a].name < pods[b].name; });
  std::vector<std::size_t> seq = by_name;
  for (std::size_t i = seq.size(); i > 1; --i) {  // Fisher-Yates
    std::swap(seq[i - 1], seq[rng.below(i)]);
  }
  std::int64_t total = 0;
  for (std::size_t i : seq) total += std::int64_t{pods[i].num_gpus} * pods[i].gpu_milli;
  const double target = ratio * static_cast<double>(cluster_gpu_milli);
  if (static_cast<double>(total) > target) {
    while (static_cast<double>(total) > target && !seq.empty()) {
      const std::size_t k = rng.below(seq.size());
      total -= std::int64_t{pods[seq[k]].num_gpus} * pods[seq[k]].gpu_milli;
      seq.erase(seq.begin() + static_cast<std::ptrdiff_t>(k));
    }
  } else if (std::any_of(pods.begin(), pods.end(),
                         [](const PodSpec& p) { return p.num_gpus > 0 && p.gpu_milli > 0; })) {
    // Without a GPU pod the request never grows: drawing would never end.
    while (true) {
      const std::size_t i = by_name[rng.below(by_name.size())];
      if (static_cast<double>(total + pods[i].gpu_milli) > target) break;
      total += std::int64_t{pods[i].num_gpus} * pods[i].gpu_milli;
      seq.push_back(i);
    }
  }
  return seq;
}

PackResult run_inflation(const std::vector<NodeSpec>& nodes, const std::vector<PodSpec>& pods,
                         const PackOptions& options) {
  PackingSimulator sim(nodes, pods, options.policy, options.seed, options.tie_break);
  PackResult result;
  result.total_gpus = sim.total_gpus();
  result.typical_pod_kinds = sim.typical_pods().pods.size();
  if (pods.empty() || sim.total_gpus() == 0) {
    for (int r = 0; r <= options.arrive_to; ++r) result.curve.push_back({r, {}, {}});
    return result;
  }
  const std::vector<std::size_t> seq =
      inflation_sequence(pods, sim.total_gpus() * kGpuMilli, options.arrive_to / 100.0, sim.rng());

  std::vector<PodDemand> demands;
  demands.reserve(pods.size());
  for (const auto& p : pods) demands.push_back(sim.demand_of(p));

  const std::size_t buckets = static_cast<std::size_t>(options.arrive_to) + 2;
  std::vector<double> alloc_sum(buckets, 0.0), frag_sum(buckets, 0.0);
  std::vector<std::int64_t> count(buckets, 0);
  const double total_gpus = static_cast<double>(sim.total_gpus());
  for (std::size_t i : seq) {
    const PodDemand& d = demands[i];
    result.arrived_gpu_milli += d.total_gpu_milli();
    ++result.pods_arrived;
    if (!sim.schedule(d)) ++result.pods_failed;
    // The study's analysis: arrived % rounded half-to-even, allocation % to 0.01.
    const double arrived = static_cast<double>(result.arrived_gpu_milli) / total_gpus / 10.0;
    const double r = std::nearbyint(arrived);
    if (r < 0 || r >= static_cast<double>(buckets)) continue;
    const std::size_t b = static_cast<std::size_t>(r);
    alloc_sum[b] += round2(static_cast<double>(sim.allocated_gpu_milli()) / total_gpus / 10.0);
    const double idle = static_cast<double>(sim.idle_gpu_milli());
    frag_sum[b] += round2(idle > 0 ? 100.0 * sim.fragmentation_milli() / idle : 0.0);
    ++count[b];
  }
  for (int r = 0; r <= options.arrive_to; ++r) {
    const std::size_t b = static_cast<std::size_t>(r);
    CurvePoint p{r, {}, {}};
    double a = 0, f = 0;
    std::int64_t c = 0;
    if (count[b] > 0) {
      a = alloc_sum[b];
      f = frag_sum[b];
      c = count[b];
    } else {
      for (std::size_t k = b == 0 ? 0 : b - 1; k <= b + 1 && k < buckets; ++k) {
        a += alloc_sum[k];
        f += frag_sum[k];
        c += count[k];
      }
    }
    if (c > 0) {
      p.alloc_pct = round2(a / static_cast<double>(c));
      p.frag_pct = round2(f / static_cast<double>(c));
    }
    result.curve.push_back(p);
  }
  result.allocated_gpu_milli = sim.allocated_gpu_milli();
  return result;
}

}  // namespace gpumux::packing
