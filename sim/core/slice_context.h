// What a service's requests meet on a time-sliced GPU (docs/services.md "Requests under
// time-slicing"): the slice rules of the GPU and the other contexts sharing it. A sharing model
// that time-slices whole contexts describes it (SharingModel::slice_context), and the
// request-level service replica then serves each request from the slice schedule
// (sim/services/slice_schedule.h) instead of stretching it by the fluid rate.
#pragma once

#include <vector>

namespace gpumux {

// One other context on the GPU, as time-slicing sees it.
struct SliceContender {
  double sm_util = 1.0;  // duty cycle alone, (0, 1]
  double kernel_us = 0;  // mean kernel length, > 0
};

struct SliceContext {
  double slice_us = 0;   // time slice of a context, > 0
  double switch_us = 0;  // context-switch time, nobody computes, >= 0
  // Kernel slowdown per unit of the other contexts' summed duty cycle, >= 0 (see
  // TimeSliceParams::interference).
  double interference = 0;
  double launch_gap_us = 0;            // shortest CPU gap between two kernels of a process, >= 0
  bool fixed_lengths = false;          // kernels and gaps of fixed length, else exponential
  std::vector<SliceContender> others;  // the other residents, in placement order
};

}  // namespace gpumux
