// Kernel-level reference simulator of ONE time-sliced GPU.
//
// Every kernel burst, CPU gap, time slice and context switch is an explicit event. It is slow
// (events per kernel) and serves as the ground truth the fast rate model (timeslice_rates.h) is
// validated against; cluster runs never use it.
//
// The physics (docs/gpu-facts.md "Time-slicing"):
// - Each job alternates a kernel burst and a CPU gap, both drawn from `distribution` with means
//   mean_kernel_us and mean_kernel_us * (1 - sm_util) / sm_util, so that alone it keeps the GPU
//   busy sm_util of the time. A job with sm_util == 1 and no launch gap has no gaps: its next
//   kernel is always queued.
// - Gaps are at least `launch_gap_us` (launch + synchronise), see effective_cycle().
// - One context runs at a time. The running context keeps the GPU until one of its kernels ends
//   while others wait (strict alternation at kernel ends, measured on an H200: the GPU switches
//   even when the same process has its next kernel ready), or its time slice expires while
//   others wait. A slice starts when the context starts running; while nobody waits it renews
//   itself, so a newcomer waits at most until the running context's next slice boundary.
// - Waiting contexts are served first come, first served; a preempted context rejoins at the
//   back with its remaining burst (instruction-level preemption since Pascal: no work is lost).
// - Each switch between different contexts costs switch_cost_us during which nobody computes.
//   A context that resumes after idling while still resident pays nothing.
// - `interference` lengthens every burst of job i by (1 + interference * sum_{j!=i} sm_util_j).
//
// Times are double microseconds, unlike the engine's integer sim::Time: kernels of 10 us with
// exponential lengths need sub-microsecond resolution, and this simulator's clock never meets
// the engine's. Deterministic for a given seed (its own portable samplers, no <random>
// distributions, whose output differs between standard libraries).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "bench/validation/lib/request_driver.h"
#include "models/timeslice/timeslice_params.h"

namespace gpumux {

struct ReferenceConfig {
  TimeSliceParams params;
  std::optional<RequestDriver> requests;  // job 0 serves requests (see RequestDriver)
  std::uint64_t seed = 1;
  // The measured window lasts until the job with the longest cycle (kernel + gap) has had
  // `min_cycles` cycles, but is cut short so that at most about `max_events` events are
  // simulated. A warm-up of a tenth of the window (at least 10 slices) is discarded first.
  double min_cycles = 2000.0;
  double max_events = 4e6;
  // If > 0, overrides the automatic window length, microseconds.
  double horizon_us = 0.0;
};

struct ReferenceResult {
  // Per job: progress relative to running alone, in (0, 1] up to sampling noise (a job can
  // briefly run ahead of its average; rates are not clipped).
  std::vector<double> rates;
  std::vector<double> work_us;   // kernel time executed in the window, per job
  double busy_fraction = 0.0;    // useful utilization: kernels running
  double switch_fraction = 0.0;  // context switches in progress
  double idle_fraction = 0.0;    // nobody ready
  double window_us = 0.0;        // measured window length
  std::int64_t switches = 0;     // switches completed in the window
  std::int64_t events = 0;       // events simulated, warm-up included
  // With config.requests: arrival to the end of its burst, us, of every request that arrived
  // in the window and finished before its end, in arrival order. rates[0] is then meaningless.
  std::vector<double> request_latencies_us;
  std::int64_t requests_unfinished = 0;  // arrived in the window, not served by its end
};

// Simulates `jobs` sharing one GPU. Preconditions (else std::invalid_argument): jobs non-empty,
// each sm_util in (0, 1] and mean_kernel_us > 0, time_slice_us > 0, switch_cost_us >= 0,
// interference >= 0; with requests, the RequestDriver's preconditions.
ReferenceResult simulate_reference(const std::vector<TimeSliceJob>& jobs,
                                   const ReferenceConfig& config);

}  // namespace gpumux
