// Who dies when the jobs on a GPU need more memory than it has: the out-of-memory machinery
// shared by every model without memory isolation (time-slicing, MPS).
//
// - `all`: the fault reaches every process on the GPU (MPS's default behaviour, and what an
//   out-of-memory storm does to co-located processes); the GPU then refuses new jobs for a
//   recovery delay once they have left.
// - `allocator`: only the processes whose own allocation failed die: walking the residents in
//   the order they arrived, those whose memory no longer fits (time-slicing: each context
//   allocates for itself, the later allocation fails). No recovery delay.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/sharing_model.h"
#include "sim/units.h"

namespace gpumux {

enum class OomPolicy : std::uint8_t { kAll, kAllocator };

// Throws std::invalid_argument for an unknown name; valid: oom_policy_names().
OomPolicy parse_oom_policy(std::string_view name);
std::string_view oom_policy_name(OomPolicy policy);
std::vector<std::string> oom_policy_names();

// Marks the residents that die (see the policies above) and sets `recovery`. Precondition:
// killed.size() == gpu.residents.size(). Returns false when the memory fits and nobody dies.
bool apply_oom_policy(OomPolicy policy, const GpuView& gpu, Time recovery_delay,
                      std::span<std::uint8_t> killed, Time& recovery);

}  // namespace gpumux
