#include "sim/placement/fgd/node_state.h"

#include "sim/base/input_error.h"

namespace gpumux::packing {

int GpuModelTable::intern(const std::string& name, const std::string& where) {
  int found = find(name);
  if (found >= 0) return found;
  if (static_cast<int>(names_.size()) >= kMaxModels) {
    throw InputError(where, "model", "more than 64 distinct GPU models are not supported");
  }
  names_.push_back(name);
  return static_cast<int>(names_.size()) - 1;
}

int GpuModelTable::find(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

PodDemand make_demand(const PodSpec& pod, const GpuModelTable& models) {
  PodDemand d;
  d.cpu_milli = pod.cpu_milli;
  d.score_cpu_milli = pod.cpu_milli == 0 ? 100 : pod.cpu_milli;
  d.memory_mib = pod.memory.mib();
  d.num_gpus = pod.num_gpus;
  d.gpu_milli = pod.gpu_milli;
  d.any_model = pod.gpu_spec.empty() || pod.num_gpus == 0;
  if (!d.any_model) {
    for (const auto& m : pod.gpu_spec) {
      int idx = models.find(m);
      if (idx >= 0) d.model_mask |= std::uint64_t{1} << idx;
    }
  }
  return d;
}

NodeState make_node_state(const NodeSpec& spec, const GpuModelTable& models) {
  NodeState n;
  n.cpu_capacity = spec.cpu_milli;
  n.cpu_left = spec.cpu_milli;
  n.memory_left_mib = spec.memory.mib();
  n.num_gpus = spec.num_gpus;
  n.model = spec.gpu_model.empty() ? NodeState::kNoModel : models.find(spec.gpu_model);
  for (int g = 0; g < spec.num_gpus; ++g) n.gpu_left[static_cast<std::size_t>(g)] = kGpuMilli;
  return n;
}

bool fits(const NodeState& n, const PodDemand& p, GpuMask mask) {
  if (n.cpu_left < p.cpu_milli || n.memory_left_mib < p.memory_mib) return false;
  if (!p.is_gpu()) return true;
  if (n.num_gpus == 0 || !model_accessible(n, p)) return false;
  if (p.is_share()) {
    for (int g = 0; g < n.num_gpus; ++g) {
      if (allowed(mask, g) && n.gpu_left[static_cast<std::size_t>(g)] >= p.gpu_milli) return true;
    }
    return false;
  }
  int free = 0;
  for (int g = 0; g < n.num_gpus; ++g) {
    free += allowed(mask, g) && n.gpu_left[static_cast<std::size_t>(g)] == kGpuMilli;
  }
  return free >= p.num_gpus;
}

}  // namespace gpumux::packing
