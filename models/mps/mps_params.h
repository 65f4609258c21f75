// Inputs shared by the MPS models (the concurrent-kernel reference and the fast rate model).
#pragma once

namespace gpumux {

// One MPS client (a job's process on one GPU) as the MPS models see it.
struct MpsJob {
  // Duty cycle alone, in (0, 1]: the fraction of time its kernels keep the GPU busy when it runs
  // alone on the whole GPU. Between kernel bursts it spends CPU gaps of mean
  // mean_kernel_us * (1 - sm_util) / sm_util. 1 means never idle.
  double sm_util = 1.0;
  // Fraction of the GPU's SMs its kernels occupy while running alone, in (0, 1].
  double sm_share = 1.0;
  // CUDA_MPS_ACTIVE_THREAD_PERCENTAGE / 100, in (0, 1]: the most SMs its kernels may use. It
  // caps, it reserves nothing (docs/gpu-facts.md "MPS"). A cap below sm_share slows the job even alone.
  double active_thread_fraction = 1.0;
  // Mean length of one kernel burst when running alone on the whole GPU, microseconds, > 0.
  double mean_kernel_us = 1000.0;

  // SMs the job asks for while a kernel runs: its share, capped by its thread percentage.
  double demand() const {
    return sm_share < active_thread_fraction ? sm_share : active_thread_fraction;
  }
  // Its kernels' speed alone under MPS relative to alone on an uncapped GPU: demand / sm_share.
  double cap_speed() const { return demand() / sm_share; }
};

// Shape of kernel bursts and CPU gaps around their means. Exponential is the default (real
// kernel mixes are highly variable); fixed is the deterministic extreme.
enum class MpsBursts { kExponential, kFixed };

enum class MpsSmAllocation { kFluid, kBlocks };

struct MpsParams {
  // Memory-bandwidth / cache contention: a running kernel's speed is divided by
  // (1 + interference * the SM share granted to the OTHER running kernels). 0 is the pure
  // model (SMs are the only shared resource); a nonzero value must come from data. >= 0.
  double interference = 0.0;
  MpsBursts bursts = MpsBursts::kExponential;
  // How SMs are shared (mps_rates.h): kBlocks, thread blocks hold their SMs until they end, so
  // kernels that do not fit beside each other take turns (what the H200 measurements show; the
  // `mps` sharing model's default), or kFluid, SMs shared in proportion to demand at every
  // instant (the earlier model, kept for the co-location fits and comparisons).
  MpsSmAllocation allocation = MpsSmAllocation::kFluid;
  // Shortest CPU gap between two kernels of one client (launch + synchronise), microseconds,
  // >= 0; rates stay relative to the client alone with the same gap. Used by the fast model.
  double launch_gap_us = 0.0;
};

}  // namespace gpumux
