// What a sharing model is shown of one GPU (GpuView) and what it says of the GPU's time
// (GpuLoad): the vocabulary of SharingModel (sim/core/sharing_model.h) and of its facets
// (sim/core/sharing_facets.h).
#pragma once

#include <cstdint>
#include <span>

#include "sim/base/units.h"
#include "sim/core/device.h"
#include "sim/core/job.h"

namespace gpumux {

// The jobs on one GPU, as a model sees them. Valid only during the call it is passed to.
struct GpuView {
  const DeviceProfile& device;
  std::span<const JobSpec* const> residents;  // in the order they were placed
  MemoryMiB memory_used;                      // sum of the residents' memory in use now
  // Memory each resident uses now (same order; its peak unless it has a memory profile).
  // Empty for a view of an empty GPU.
  std::span<const MemoryMiB> resident_memory = {};
  int layout = 0;  // the GPU's configuration (e.g. MIG partition), see SlotLayout::layout_count
  // The slot each resident holds (same order; see SlotLayout::choose_slot). Empty when the
  // caller does not track slots (a view built by hand): models then assign slots themselves.
  std::span<const int> resident_slot = {};
  // Which residents asked for memory since the GPU was last checked (same order; nonzero:
  // asked): those that were just placed (a new process allocates) and those whose memory in
  // use just grew (a memory profile step). Out of memory fails the allocation of an asker, never
  // of a resident whose use did not change. Empty when the caller does not know (a view built
  // by hand): every resident then counts as an asker, in placement order.
  std::span<const std::uint8_t> resident_asked = {};
};

// The room of a GPU no model bounds (RoomBound::gpu_room): every job may fit.
inline constexpr double kUnboundedRoom = 1e300;

// What a GPU does with its time under the current residents, as fractions of wall time.
struct GpuLoad {
  double useful_busy = 0.0;  // SMs busy with residents' kernels, [0, 1]
  double overhead = 0.0;     // lost to sharing (e.g. context switches), [0, 1 - useful_busy]
  // Where the rates came from, for the echo of the workload catalogue (bit i: resident i;
  // models/colocation_speed.h): rates that are measured co-location speeds instead of the
  // model's, and residents beside a partner the catalogue measured as unable to run with them
  // (they keep the model's rate). Zero under models that never use measured pair speeds.
  std::uint8_t measured_pair = 0;
  std::uint8_t unrunnable_pair = 0;
};

}  // namespace gpumux
