// Block-level reference simulator of ONE GPU shared through MPS: SMs are discrete and thread
// blocks hold them until they end (no preemption), which is what the H200 measurements show
// (docs/gpu-facts.md "Measured here": beside a busy kernel holding all SMs for 2 ms a 20 us kernel
// gets 0.015-0.025 of its speed, where sharing SMs in proportion would give it about half).
//
// The physics:
// - The GPU has `sms` SMs. A kernel of job j is b_j = max(1, round(sm_share_j x sms)) blocks
//   of one SM each (one block per SM, as the probe forces); alone on an uncapped GPU they run as
//   one wave of mean_kernel_us (fixed or exponential per kernel, as MpsParams::bursts says).
// - CUDA_MPS_ACTIVE_THREAD_PERCENTAGE lets a client hold at most max(1, floor(atf x sms)) SMs at
//   once: a capped kernel runs in waves, even alone.
// - Kernels are queued in launch order. Whenever SMs free up or a kernel is launched, the block
//   scheduler walks the queue in that order and gives each kernel's waiting blocks the free SMs
//   it may take (its cap permitting); a kernel that cannot start all its blocks runs the rest in
//   later waves. Blocks are never preempted.
// - A block's duration is stretched by (1 + interference x share of the other clients' busy SMs
//   when it starts), the same contention term as the fluid reference.
// - After its last block ends the client waits its CPU gap (at least the launch gap) and
//   launches its next kernel; a client whose gap is zero launches at once.
//
// Reported as MpsReferenceResult (mps_reference.h): rates relative to the client alone on an
// uncapped GPU with the same gap. Slow (an event per block group); cluster runs never use it.
#pragma once

#include <vector>

#include "bench/validation/mps/lib/mps_reference.h"

namespace gpumux {

// Preconditions as simulate_mps_reference, plus sms >= 1 (else std::invalid_argument).
MpsReferenceResult simulate_mps_blocks(const std::vector<MpsJob>& jobs,
                                       const MpsReferenceConfig& config, int sms);

}  // namespace gpumux
