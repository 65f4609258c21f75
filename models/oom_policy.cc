#include "models/oom_policy.h"

#include <stdexcept>

namespace gpumux {

OomPolicy parse_oom_policy(std::string_view name) {
  if (name == "all") return OomPolicy::kAll;
  if (name == "allocator") return OomPolicy::kAllocator;
  throw std::invalid_argument("unknown out-of-memory policy '" + std::string(name) + "'");
}

std::string_view oom_policy_name(OomPolicy policy) {
  return policy == OomPolicy::kAll ? "all" : "allocator";
}

std::vector<std::string> oom_policy_names() { return {"all", "allocator"}; }

bool apply_oom_policy(OomPolicy policy, const GpuView& gpu, Time recovery_delay,
                      std::span<std::uint8_t> killed, Time& recovery) {
  if (gpu.memory_used <= gpu.device.memory) return false;
  recovery = Time::zero();
  if (policy == OomPolicy::kAll) {
    for (auto& k : killed) k = 1;
    recovery = recovery_delay;
    return true;
  }
  MemoryMiB allocated;
  bool any = false;
  for (std::size_t i = 0; i < gpu.residents.size(); ++i) {
    const MemoryMiB need =
        gpu.resident_memory.empty() ? gpu.residents[i]->memory : gpu.resident_memory[i];
    if (allocated + need <= gpu.device.memory) {
      allocated += need;
      killed[i] = 0;
    } else {
      killed[i] = 1;
      any = true;
    }
  }
  return any;
}

}  // namespace gpumux
