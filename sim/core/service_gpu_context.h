// What a service's requests meet on a shared GPU, for request-level services
// (docs/services.md "Requests under time-slicing" and "Requests under MPS"): the GPU's rules and
// the other contexts sharing it. A sharing model that time-slices whole contexts describes the
// slice schedule (ServiceContexts::slice_context), one whose clients' thread blocks share the SMs
// describes the block schedule (ServiceContexts::block_context); the request-level service replica
// then serves each request from that schedule (sim/services/slice_schedule.h,
// sim/services/block_schedule.h) instead of stretching it by the fluid rate.
#pragma once

#include <vector>

namespace gpumux {

// One other context on the GPU, as time-slicing sees it.
struct SliceContender {
  double sm_util = 1.0;  // duty cycle alone, (0, 1]
  double kernel_us = 0;  // mean kernel length, > 0
  // Its kernels all last kernel_us (another service: one request's service time), whatever
  // SliceContext::fixed_lengths says; its gaps still follow fixed_lengths.
  bool fixed_kernels = false;
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

// One other MPS client on the GPU, as the block scheduler sees it.
struct BlockContender {
  double sm_util = 1.0;  // duty cycle alone, (0, 1]
  double kernel_us = 0;  // mean kernel length alone (one wave), > 0
  int blocks = 1;        // thread blocks of one kernel, one SM each, >= 1
  int cap = 1;           // SMs it may hold at once (active thread percentage), >= 1
};

struct BlockContext {
  int sms = 1;  // streaming multiprocessors of the GPU, >= 1
  // Block slowdown per unit of the share of SMs the other clients hold when it starts, >= 0
  // (MpsParams::interference).
  double interference = 0;
  double launch_gap_us = 0;    // shortest CPU gap between two kernels of a client, >= 0
  bool fixed_lengths = false;  // the others' kernels and gaps of fixed length, else exponential
  int service_blocks = 1;      // blocks of one of the service's kernels (its sm_share), >= 1
  int service_cap = 1;         // SMs the service may hold at once, >= 1
  std::vector<BlockContender> others;  // the other clients, in placement order
};

// What the engine hands a service at a rate change: at most one of the two is set; both null
// when requests progress at the fluid rate (exclusive, MIG, a GPU of its own, gangs).
struct ServiceGpuContext {
  const SliceContext* slices = nullptr;
  const BlockContext* blocks = nullptr;
};

}  // namespace gpumux
