// Concurrent-kernel reference simulator of ONE GPU shared through MPS.
//
// Every kernel burst and CPU gap is an explicit event; between events the GPU is a fluid of SM
// shares. It is slow (events per kernel) and is the ground truth the fast rate model
// (mps_rates.h) is validated against; cluster runs never use it.
//
// The physics (docs/gpu-facts.md "MPS"):
// - Each job alternates a kernel burst and a CPU gap, both drawn from `bursts` with means
//   mean_kernel_us and mean_kernel_us * (1 - sm_util) / sm_util, so that alone on the whole GPU
//   it keeps the GPU busy sm_util of the time. A job with sm_util == 1 never idles.
// - Kernels of different jobs run concurrently (one MPS server context: no context switches).
//   A running kernel of job i demands d_i = min(sm_share_i, active_thread_fraction_i) of the
//   SMs (the thread percentage caps, it reserves nothing). When the running kernels' summed
//   demand D exceeds 1 the SMs are shared in proportion to demand: kernel i is granted
//   g_i = d_i / max(1, D).
// - Kernel i then progresses at speed (g_i / sm_share_i) / (1 + interference * sum_{j != i}
//   g_j) relative to running alone on an uncapped GPU: SM time it lacks, and memory-bandwidth /
//   cache contention from the SMs the other running kernels hold. CPU gaps are unaffected.
//
// Reported: each job's rate (work done relative to the same window alone on an uncapped GPU),
// the busy fraction (some kernel running: the duty cycle a utilization counter would show),
// the SM fraction (SM time granted / total: useful utilization of the SMs) and the idle
// fraction (no kernel running). Times are double microseconds (see timeslice/kernel_reference.h
// for why). Deterministic for a given seed (portable samplers on std::mt19937_64).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "bench/validation/lib/request_driver.h"
#include "models/mps/mps_params.h"

namespace gpumux {

struct MpsReferenceConfig {
  MpsParams params;
  std::uint64_t seed = 1;
  // The measured window lasts until the job with the longest alone cycle (kernel + gap) has had
  // `min_cycles` cycles, cut short so that about `max_events` events are simulated. A warm-up
  // of a tenth of the window is discarded first.
  double min_cycles = 2000.0;
  double max_events = 4e6;
  double horizon_us = 0.0;  // if > 0, overrides the automatic window length
  // Job 0 serves requests (RequestDriver): its kernel per burst has its sm_share's blocks.
  // The block-level simulator only (simulate_mps_blocks); the fluid one refuses it.
  std::optional<RequestDriver> requests;
};

struct MpsReferenceResult {
  // Per job: progress relative to running alone on an uncapped GPU; (0, 1] up to sampling noise.
  std::vector<double> rates;
  std::vector<double> running_fraction;  // per job: share of the window a kernel of it ran
  double busy_fraction = 0.0;            // some kernel running
  double sm_fraction = 0.0;              // SM time granted to kernels / window, <= busy
  double idle_fraction = 0.0;            // no kernel running; busy + idle = 1
  double window_us = 0.0;
  std::int64_t events = 0;  // warm-up included
  // With config.requests: arrival to the end of its burst, us, of every request that arrived
  // in the window and finished before its end, in arrival order; rates[0] is then meaningless.
  std::vector<double> request_latencies_us;
  std::int64_t requests_unfinished = 0;  // arrived in the window, not served by its end
};

// Preconditions (else std::invalid_argument): jobs non-empty, each sm_util, sm_share and
// active_thread_fraction in (0, 1], mean_kernel_us > 0, interference >= 0.
MpsReferenceResult simulate_mps_reference(const std::vector<MpsJob>& jobs,
                                          const MpsReferenceConfig& config);

}  // namespace gpumux
