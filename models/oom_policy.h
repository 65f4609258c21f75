// Who dies when the jobs on a GPU need more memory than it has: the out-of-memory machinery
// shared by every model without memory isolation (time-slicing, MPS).
//
// - `all`: the fault reaches every process on the GPU (MPS's default behaviour, and what an
//   out-of-memory storm does to co-located processes); the GPU then refuses new jobs for a
//   recovery delay once they have left.
// - `allocator`: only the processes whose own allocation failed die: walking the residents in
//   the order they arrived, those whose memory no longer fits (time-slicing: each context
//   allocates for itself, the later allocation fails). No recovery delay.
// - `offender`: per-client memory limits (MPS CUDA_MPS_PINNED_DEVICE_MEM_LIMIT) contain the
//   failure: a job whose use exceeds its own limit dies alone, even on a GPU with memory left;
//   if nobody exceeds a limit but the GPU is still over (limits oversubscribed), `allocator`
//   decides. No recovery delay.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/sharing_model.h"
#include "sim/units.h"

namespace gpumux {

enum class OomPolicy : std::uint8_t { kAll, kAllocator, kOffender };

// Throws std::invalid_argument for an unknown name; valid: oom_policy_names().
OomPolicy parse_oom_policy(std::string_view name);
std::string_view oom_policy_name(OomPolicy policy);
std::vector<std::string> oom_policy_names();

// Marks the residents that die (see the policies above) and sets `recovery`. Preconditions:
// killed.size() == gpu.residents.size(); `limits` is empty or has one limit per resident
// (zero: none), used by `offender`. Returns false when nobody dies.
bool apply_oom_policy(OomPolicy policy, const GpuView& gpu, Time recovery_delay,
                      std::span<std::uint8_t> killed, Time& recovery,
                      std::span<const MemoryMiB> limits = {});

}  // namespace gpumux
