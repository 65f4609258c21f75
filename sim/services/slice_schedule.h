// The slice schedule a service's requests meet on a time-sliced GPU (docs/services.md
// "Requests under time-slicing"): the same rules as the kernel-level reference
// (bench/validation/timeslice/lib/kernel_reference.h), simulated only around the service's own
// bursts.
//
// - One context runs at a time. A running context keeps the GPU until one of its kernels ends
//   while others wait (strict alternation at kernel ends, measured on an H200) or its slice
//   expires while others wait; waiting contexts are served first come, first served; every
//   switch between different contexts costs switch_us during which nobody computes.
// - The other contexts alternate kernels and CPU gaps (means from their duty cycle and kernel
//   length, fixed or exponential, gaps at least the launch gap). Another service's kernel is
//   one request of its service time, always of that length (as its own schedule serves it).
// - The service's burst is one batch of requests: its kernels are queued back to back and
//   synchronised once, so the batch is one submission (what the models call a kernel: the work
//   between two CPU gaps). It runs at full speed while it holds the GPU and hands over only when
//   its slice expires while others wait. Between two batches it leaves at least the launch gap.
//
// So a request that arrives while another context holds the GPU waits for that context's kernel
// or slice to end, plus the switch, and then runs at full speed, handing over at its slice ends
// whenever another context waits. The other contexts are simulated from the previous
// burst's end to the next burst's start; over an idle stretch longer than `horizon` they
// restart from random phases that long before the burst (their state then no longer depends
// on the past), so the cost per batch is bounded by the events of one batch and one horizon.
//
// The others' throughput is not taken from here: the sharing model's fluid rates give it.
// Times are double microseconds on the replica's clock. Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/service_gpu_context.h"
#include "sim/services/burst_schedule.h"

namespace gpumux {

class SliceSchedule : public BurstSchedule {
 public:
  explicit SliceSchedule(std::uint64_t seed) : BurstSchedule(seed) {}

  // The GPU's contexts from t_us on (others arrived or left): the others restart from random
  // phases at t_us, the GPU idle. Preconditions: context.slice_us > 0, every other's sm_util
  // in (0, 1] and kernel_us > 0.
  void reset(double t_us, const SliceContext& context);

 private:
  struct Context {
    double kernel_us = 0;  // mean kernel, interference included
    bool fixed_kernel = false;  // every kernel lasts kernel_us (another service's request)
    double gap_us = 0;     // mean CPU gap (the others); 0: always ready
    bool ready = false;
    double remaining_us = 0;  // of the current kernel, while ready
    double ready_at = 0;      // end of the current gap, while not ready (the others)
  };
  enum class Mode { kIdle, kRunning, kSwitching };

  double draw_kernel(const Context& c) { return c.fixed_kernel ? c.kernel_us : draw(c.kernel_us); }
  // The others restart from random phases.
  void restart_others(double t_us) override;
  // Its kernels, slowed by the others' interference, wait for the GPU like the others'.
  void start_burst(double work_us) override;
  double run(double until_us, bool until_service) override;
  void make_ready(int who);
  void start_switch();
  double next_boundary() const;

  double slice_us_ = 1;
  double switch_us_ = 0;
  double service_slowdown_ = 1;    // interference on the service's kernels
  std::vector<Context> contexts_;  // [0] the service, then the others
  Mode mode_ = Mode::kIdle;
  int resident_ = -1;  // context whose state is loaded on the GPU
  int target_ = -1;    // context being switched in
  double switch_end_ = 0;
  double slice_start_ = 0;
  double slice_end_ = 0;      // meaningful while someone waits
  std::vector<int> waiting_;  // ready contexts not on the GPU, first come first served
};

}  // namespace gpumux
