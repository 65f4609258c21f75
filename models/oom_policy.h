// Who dies when the jobs on a GPU need more memory than it has: the out-of-memory machinery
// shared by every model without memory isolation (time-slicing, MPS).
//
// - `allocator` (the default of every model): only the processes whose own allocation failed
//   die, as measured on an H200 under MPS and time-slicing alike (docs/gpu-facts.md "MPS": out of memory
//   is not a fault, the others run on). The askers are the residents flagged in
//   GpuView::resident_asked (just placed, or memory just grew); the others keep what they hold.
//   The askers' allocations then come in placement order and each that no longer fits fails:
//   when several asked at one instant, the later-placed die until the rest fits. A resident
//   whose memory did not change never dies. No recovery delay.
// - `all`: the failure reaches every process on the GPU (an application that turns an
//   out-of-memory error into a fatal fault, which under MPS tears down every client); the GPU
//   then refuses new jobs for a recovery delay once they have left.
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

#include "sim/core/sharing_model.h"
#include "sim/base/units.h"

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
