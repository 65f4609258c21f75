#include "sim/placement/fgd/policy.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace gpumux::packing {

std::string_view policy_name(Policy p) {
  switch (p) {
    case Policy::kRandom:
      return "Random";
    case Policy::kDotProd:
      return "DotProd";
    case Policy::kGpuClustering:
      return "GpuClustering";
    case Policy::kGpuPacking:
      return "GpuPacking";
    case Policy::kBestFit:
      return "BestFit";
    case Policy::kFgd:
      return "FGD";
  }
  return "?";
}

std::optional<Policy> parse_policy(std::string_view name) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string wanted = lower(name);
  for (Policy p : kAllPolicies) {
    if (lower(policy_name(p)) == wanted) return p;
  }
  return std::nullopt;
}

std::string policy_name_list() {
  std::string out;
  for (Policy p : kAllPolicies) {
    if (!out.empty()) out += ", ";
    out += policy_name(p);
  }
  return out;
}

int dot_product_score(const NodeState& node, const PodDemand& pod) {
  if (node.cpu_left < pod.score_cpu_milli) return 0;
  const double max_cpu = static_cast<double>(kMaxSpecCpuMilli);
  const double max_gpu = static_cast<double>(kMaxSpecGpuMilli);
  const double dot = static_cast<double>(node.cpu_left) / max_cpu *
                         (static_cast<double>(pod.score_cpu_milli) / max_cpu) +
                     static_cast<double>(node.gpu_left_total()) / max_gpu *
                         (static_cast<double>(pod.total_gpu_milli()) / max_gpu);
  const double score = 1.0 - dot / 2.0;
  return static_cast<int>(static_cast<std::int64_t>(kMaxNodeScore * score));
}

int gpu_clustering_score(const NodeState& node, const PodDemand& pod) {
  if (!pod.is_gpu()) return 0;
  const std::size_t tag = pod.is_share() ? 0 : static_cast<std::size_t>(pod.num_gpus);
  // Integer arithmetic in the study's order: 25 * (8000 - left) / 8000.
  const std::int64_t fullness = std::int64_t{kMaxNodeScore / 4} *
                                (kMaxSpecGpuMilli - node.gpu_left_total()) / kMaxSpecGpuMilli;
  std::int64_t band;
  if (node.affinity[tag] > 0) {
    band = node.affinity_kinds == 1 ? kMaxNodeScore * 3 / 4 : kMaxNodeScore * 2 / 4;
  } else {
    band = node.affinity_kinds == 0 ? kMaxNodeScore / 4 : 0;
  }
  return static_cast<int>(fullness + band);
}

int gpu_packing_score(const NodeState& node, const PodDemand& pod) {
  if (!pod.is_gpu()) return 0;
  const int free_gpus = node.fully_free_gpus();
  if (free_gpus == node.num_gpus) {  // idle node: smaller first
    return std::max(kMaxNodeScore / 3 - free_gpus, free_gpus);
  }
  // Walk GPUs from the least milli left (stable by index), as the study does.
  // Insertion sort: stable like the study's sort.SliceStable, and allocation-free.
  std::array<int, kMaxGpusPerNode> order{};
  for (int g = 0; g < node.num_gpus; ++g) {
    int i = g;
    while (i > 0 &&
           node.gpu_left[static_cast<std::size_t>(order[static_cast<std::size_t>(i - 1)])] >
               node.gpu_left[static_cast<std::size_t>(g)]) {
      order[static_cast<std::size_t>(i)] = order[static_cast<std::size_t>(i - 1)];
      --i;
    }
    order[static_cast<std::size_t>(i)] = g;
  }
  int need = pod.num_gpus;
  int free_used = 0;
  std::int64_t free_ratio_sum = 0;
  for (int i = 0; i < node.num_gpus && need > 0; ++i) {
    const std::int32_t left =
        node.gpu_left[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
    if (pod.gpu_milli <= left) {
      --need;
      if (left == kGpuMilli) ++free_used;
      free_ratio_sum += std::int64_t{left} * 100 / kGpuMilli;
    }
  }
  if (need != 0) return 0;  // cannot happen after fits()
  if (free_used > 0) return std::max(kMaxNodeScore / 2 - free_used, kMaxNodeScore / 3);
  return static_cast<int>(
      std::max<std::int64_t>(kMaxNodeScore - free_ratio_sum / 10, kMaxNodeScore / 2));
}

int best_fit_score(const NodeState& node, const PodDemand& pod) {
  const double free_cpu = static_cast<double>(node.cpu_left);
  const double free_gpu = static_cast<double>(node.gpu_left_total());
  const double req_cpu = static_cast<double>(pod.score_cpu_milli);
  const double req_gpu = static_cast<double>(pod.total_gpu_milli());
  // The study's plugin reports an error (scored as the minimum) when the scoring view of the
  // request exceeds what is free; that happens only for 0-CPU pods on a node with < 0.1 core.
  if (free_cpu < req_cpu || free_gpu < req_gpu) return 0;
  double s = 0;
  s += (free_cpu - req_cpu) / static_cast<double>(kMaxSpecCpuMilli) * 0.5;
  s += (free_gpu - req_gpu) / static_cast<double>(kMaxSpecGpuMilli) * 0.5;
  return static_cast<int>(static_cast<std::int64_t>((1.0 - s) * kMaxNodeScore));
}

namespace {

int sigmoid_score(std::int64_t units_delta, std::int64_t denominator) {
  const double delta_milli = static_cast<double>(units_delta) / static_cast<double>(denominator);
  const double sig = 1.0 / (1.0 + std::exp(-(delta_milli / 1000.0)));
  return static_cast<int>(static_cast<std::int64_t>(sig * kMaxNodeScore));
}

}  // namespace

FgdChoice fgd_score(const NodeState& node, const PodDemand& pod, const FragmentationModel& frag,
                    std::int64_t units_before, GpuMask mask) {
  NodeState after = node;
  after.cpu_left -= pod.score_cpu_milli;
  if (pod.is_share()) {
    FgdChoice best{0, -1};
    for (int g = 0; g < node.num_gpus; ++g) {
      const std::int32_t left = node.gpu_left[static_cast<std::size_t>(g)];
      if (left < pod.gpu_milli || !allowed(mask, g)) continue;
      // GPUs with equal milli left give equal scores; only the first can win the strict max.
      bool seen = false;
      for (int h = 0; h < g && !seen; ++h)
        seen = allowed(mask, h) && node.gpu_left[static_cast<std::size_t>(h)] == left;
      if (seen) continue;
      after.gpu_left[static_cast<std::size_t>(g)] = left - pod.gpu_milli;
      const int s = sigmoid_score(units_before - frag.units(after), frag.denominator());
      after.gpu_left[static_cast<std::size_t>(g)] = left;
      if (best.gpu < 0 || s > best.score) best = {s, g};
    }
    return best;
  }
  // Whole GPUs (or none): the fully free GPUs with the lowest indices.
  int need = pod.is_gpu() ? pod.num_gpus : 0;
  for (int g = 0; g < node.num_gpus && need > 0; ++g) {
    if (allowed(mask, g) && after.gpu_left[static_cast<std::size_t>(g)] == kGpuMilli) {
      after.gpu_left[static_cast<std::size_t>(g)] = 0;
      --need;
    }
  }
  return {sigmoid_score(units_before - frag.units(after), frag.denominator()), -1};
}

int tightest_gpu(const NodeState& node, int gpu_milli, GpuMask mask) {
  int best = -1;
  for (int g = 0; g < node.num_gpus; ++g) {
    const std::int32_t left = node.gpu_left[static_cast<std::size_t>(g)];
    if (allowed(mask, g) && left >= gpu_milli && (best < 0 || left < node.gpu_left[static_cast<std::size_t>(best)]))
      best = g;
  }
  return best;
}

}  // namespace gpumux::packing
