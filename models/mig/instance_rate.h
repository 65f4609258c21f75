// A job's rate inside one MIG instance (1.0 = as fast as alone on the whole GPU, MIG off), by one
// of two speed models over the two resources an instance fences off, its SMs and its
// memory-bandwidth slices.
//
// Supply of an instance, as fractions of the whole GPU:
//   s = instance SMs / device SMs              (A100-40GB 1g: 14 / 108)
//   m = instance memory slices / device slices (a memory slice is ~1/8 of the bandwidth)
//
// `fitted` (the default): only the kernels slow down, CPU gaps do not. With the job's duty cycle
// u = sm_util, SM occupancy c = sm_share and memory-bandwidth utilization on the whole GPU
// bw = mem_bw_util (0: not measured, taken as u x c):
//   beta = min(1, bw / u)                   bandwidth its kernels draw while they run;
//   w    = min(c, width_base + width_per_bandwidth x beta)
//                                           SMs its kernels can keep busy: kernels that draw
//                                           little bandwidth are narrow (measured: MISO's small
//                                           batches run at 0.6-0.9 of full speed on 1g/2g);
//   k    = max(1, w / s, beta / m)          how much longer a kernel runs in the instance; a
//                                           kernel narrower than the instance is not slowed;
//   rate = 1 / (u x k + 1 - u).
// width_base and width_per_bandwidth are fitted on MISO's A100-40GB measurements
// (`gpumux calibrate fit --mode mig`, models/mig/README.md). Without a bandwidth field
// beta = c, and w = c for the fitted values: the plain duty-cycle form 1 / (u max(c/s, c/m) +
// 1 - u).
//
// `roofline`: the whole runtime bound by the scarcer resource,
//   rate = min(1, s / c, m / b),  b = u x c (bandwidth proxy: scales with the SMs in use and the
//   share of time they are busy), a term dropped when its demand is zero.
//
// Either way a job never runs faster than alone, and jobs in different instances never interfere
// (MIG isolates SMs, L2 and memory controllers): the rate depends on the job and its own
// instance only.
#pragma once

#include <cstdint>

#include "sim/core/device.h"
#include "sim/core/job.h"

namespace gpumux {

enum class MigSpeedModel : std::uint8_t { kFitted, kRoofline };

// Fitted on ../shared/data/miso-a100-mig/mig_speeds_train.csv (resnet, bert, gnn, deepspeech2;
// `gpumux calibrate fit --mode mig`): MAE 0.0757 over the 56 profiles below 7g.40gb.
inline constexpr double kMigWidthBase = 0.5437;
inline constexpr double kMigWidthPerBandwidth = 0.4686;

struct MigSpeedParams {
  MigSpeedModel model = MigSpeedModel::kFitted;
  double width_base = kMigWidthBase;
  double width_per_bandwidth = kMigWidthPerBandwidth;
};

struct MigDemand {
  double compute = 0.0;    // c, fraction of the GPU's SMs
  double bandwidth = 0.0;  // b, fraction of the GPU's memory bandwidth (the roofline's proxy)
};

struct MigSupply {
  double sm_fraction = 0.0;         // s
  double bandwidth_fraction = 0.0;  // m
};

// The roofline's demand: c = sm_share, b = sm_util x sm_share.
MigDemand mig_demand(const JobSpec& job);
// Precondition: device.sms > 0 and device.mig_memory_slices > 0.
MigSupply mig_supply(const DeviceProfile& device, const MigProfile& profile);

// min(1, s/c, m/b) with zero demands dropped. In (0, 1] whenever s > 0 and m > 0.
double mig_roofline_rate(const MigDemand& demand, const MigSupply& supply);

// The fitted form's kernel slowdown k >= 1 (above).
double mig_kernel_slowdown(const JobSpec& job, const MigSupply& supply,
                           const MigSpeedParams& params);

// The rate under `params.model`. In (0, 1] whenever s > 0 and m > 0.
double mig_instance_rate(const JobSpec& job, const MigSupply& supply,
                         const MigSpeedParams& params = {});

inline double mig_instance_rate(const JobSpec& job, const DeviceProfile& device,
                                const MigProfile& profile, const MigSpeedParams& params = {}) {
  return mig_instance_rate(job, mig_supply(device, profile), params);
}

}  // namespace gpumux
