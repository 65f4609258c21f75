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
    : policy_(policy),
      tie_break_(tie_break),
      rng_(seed),
      models_(build_models(nodes)),
      nodes_(build_nodes(nodes, models_)),
      typical_(compute_typical_pods(workload, models_)),
      frag_(typical_, static_cast<int>(models_.names().size())),
      node_version_(nodes_.size(), 1),
      order_(nodes_.size()) {
  // The node order that breaks score ties (see TieBreak): a uniformly random permutation.
  std::iota(order_.begin(), order_.end(), 0);
  for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng_.below(i)]);
  node_frag_units_.reserve(nodes_.size());
  for (const auto& n : nodes_) {
    node_frag_units_.push_back(frag_.units(n));
    frag_units_total_ += node_frag_units_.back();
    total_gpus_ += n.num_gpus;
  }
}

int PackingSimulator::class_of(const PodDemand& pod) {
  const ClassKey key{pod.score_cpu_milli, pod.gpu_milli, pod.num_gpus, pod.any_model,
                     pod.model_mask};
  for (std::size_t i = 0; i < classes_.size(); ++i) {
    if (classes_[i] == key) return static_cast<int>(i);
  }
  classes_.push_back(key);
  cache_.resize(classes_.size() * nodes_.size());
  return static_cast<int>(classes_.size()) - 1;
}

std::optional<Placement> PackingSimulator::schedule(const PodSpec& pod) {
  return schedule(demand_of(pod));
}

std::optional<Placement> PackingSimulator::schedule(const PodDemand& pod) {
  const int num_nodes = static_cast<int>(nodes_.size());
  int chosen = -1;
  int chosen_gpu = -1;
  if (policy_ == Policy::kRandom) {
    std::uint64_t feasible = 0;
    for (int n = 0; n < num_nodes; ++n) {
      if (!fits(nodes_[static_cast<std::size_t>(n)], pod)) continue;
      if (rng_.below(++feasible) == 0) chosen = n;
    }
  } else {
    // Only FGD is costly enough to be worth caching; `cls` is looked up once per pod.
    const int cls = policy_ == Policy::kFgd ? class_of(pod) : -1;
    CacheEntry* row = cls >= 0 ? &cache_[static_cast<std::size_t>(cls) * nodes_.size()] : nullptr;
    int best = -1;
    std::uint64_t ties = 0;
    const bool uniform_ties = tie_break_ == TieBreak::kUniform;
    for (int k = 0; k < num_nodes; ++k) {
      const int n = uniform_ties ? k : order_[static_cast<std::size_t>(k)];
      const NodeState& node = nodes_[static_cast<std::size_t>(n)];
      if (!fits(node, pod)) continue;
      int score = 0;
      int gpu = -1;
      switch (policy_) {
        case Policy::kDotProd:
          score = dot_product_score(node, pod);
          break;
        case Policy::kGpuClustering:
          score = gpu_clustering_score(node, pod);
          break;
        case Policy::kGpuPacking:
          score = gpu_packing_score(node, pod);
          break;
        case Policy::kBestFit:
          score = best_fit_score(node, pod);
          break;
        case Policy::kFgd: {
          CacheEntry& e = row[n];
          if (e.version != node_version_[static_cast<std::size_t>(n)]) {
            const FgdChoice c =
                fgd_score(node, pod, frag_, node_frag_units_[static_cast<std::size_t>(n)]);
            e.version = node_version_[static_cast<std::size_t>(n)];
            e.score = static_cast<std::int16_t>(c.score);
            e.gpu = static_cast<std::int8_t>(c.gpu);
          }
          score = e.score;
          gpu = e.gpu;
          break;
        }
        case Policy::kRandom:
          break;
      }
      if (score > best) {
        best = score;
        ties = 1;
        chosen = n;
        chosen_gpu = gpu;
      } else if (uniform_ties && score == best && rng_.below(++ties) == 0) {
        chosen = n;
        chosen_gpu = gpu;
      }
    }
  }
  if (chosen < 0) return std::nullopt;

  int share_gpu = -1;
  if (pod.is_gpu() && pod.is_share()) {
    const NodeState& node = nodes_[static_cast<std::size_t>(chosen)];
    if (policy_ == Policy::kFgd) {
      share_gpu = chosen_gpu;
    } else if (policy_ == Policy::kRandom) {
      std::uint64_t fitting = 0;
      for (int g = 0; g < node.num_gpus; ++g) {
        if (node.gpu_left[static_cast<std::size_t>(g)] >= pod.gpu_milli &&
            rng_.below(++fitting) == 0) {
          share_gpu = g;
        }
      }
    } else {
      share_gpu = tightest_gpu(node, pod.gpu_milli);
    }
  }
  Placement out;
  apply(chosen, pod, share_gpu, out);
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
      for (int g = 0; g < node.num_gpus && out.num_gpus < pod.num_gpus; ++g) {
        if (node.gpu_left[static_cast<std::size_t>(g)] == kGpuMilli) {
          node.gpu_left[static_cast<std::size_t>(g)] = 0;
          out.gpus[static_cast<std::size_t>(out.num_gpus++)] = static_cast<std::int8_t>(g);
        }
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
