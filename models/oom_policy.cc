#include "models/oom_policy.h"

#include <stdexcept>

namespace gpumux {

OomPolicy parse_oom_policy(std::string_view name) {
  if (name == "all") return OomPolicy::kAll;
  if (name == "allocator") return OomPolicy::kAllocator;
  if (name == "offender") return OomPolicy::kOffender;
  throw std::invalid_argument("unknown out-of-memory policy '" + std::string(name) + "'");
}

std::string_view oom_policy_name(OomPolicy policy) {
  switch (policy) {
    case OomPolicy::kAll:
      return "all";
    case OomPolicy::kAllocator:
      return "allocator";
    case OomPolicy::kOffender:
      return "offender";
  }
  return "unknown";
}

std::vector<std::string> oom_policy_names() { return {"all", "allocator", "offender"}; }

namespace {

MemoryMiB in_use(const GpuView& gpu, std::size_t i) {
  return gpu.resident_memory.empty() ? gpu.residents[i]->memory : gpu.resident_memory[i];
}

}  // namespace

bool apply_oom_policy(OomPolicy policy, const GpuView& gpu, Time recovery_delay,
                      std::span<std::uint8_t> killed, Time& recovery,
                      std::span<const MemoryMiB> limits) {
  recovery = Time::zero();
  if (policy == OomPolicy::kOffender && !limits.empty()) {
    bool any = false;
    for (std::size_t i = 0; i < gpu.residents.size(); ++i) {
      killed[i] = limits[i] > MemoryMiB(0) && in_use(gpu, i) > limits[i] ? 1 : 0;
      any = any || killed[i];
    }
    if (any) return true;
  }
  if (gpu.memory_used <= gpu.device.memory) return false;
  if (policy == OomPolicy::kAll) {
    for (auto& k : killed) k = 1;
    recovery = recovery_delay;
    return true;
  }
  // Residents that did not ask hold what they hold; the askers' allocations then come in
  // placement order, and each that does not fit fails and ends its process.
  const bool known = gpu.resident_asked.size() == gpu.residents.size();
  MemoryMiB allocated;
  for (std::size_t i = 0; i < gpu.residents.size(); ++i) {
    killed[i] = 0;
    if (known && !gpu.resident_asked[i]) allocated += in_use(gpu, i);
  }
  bool any = false;
  for (std::size_t i = 0; i < gpu.residents.size(); ++i) {
    if (known && !gpu.resident_asked[i]) continue;
    const MemoryMiB need = in_use(gpu, i);
    if (allocated + need <= gpu.device.memory) {
      allocated += need;
    } else {
      killed[i] = 1;
      any = true;
    }
  }
  return any;
}

}  // namespace gpumux
