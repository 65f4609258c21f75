// A job's rate inside one MIG instance: a roofline-style minimum over the two resources an
// instance fences off, its SMs and its memory-bandwidth slices.
//
// Demand of a job, as fractions of the whole GPU (what it uses alone on a full GPU):
//   c = sm_share                 compute: share of the GPU's SMs its kernels occupy;
//   b = sm_util x sm_share       memory bandwidth. JobSpec has no bandwidth field; this proxy
//                                assumes bandwidth scales with the SMs in use and the share of
//                                time they are busy (duty cycle). An assumption, documented in
//                                models/mig/README.md.
// Supply of an instance, as fractions of the whole GPU:
//   s = instance SMs / device SMs              (A100-40GB 1g: 14 / 108)
//   m = instance memory slices / device slices (a memory slice is ~1/8 of the bandwidth)
// Rate (1.0 = as fast as alone on the whole GPU):
//   rate = min(1, s / c, m / b),
// a term dropped when its demand is zero. A job needing more than the instance gives slows down
// in proportion to the scarcer resource; it never runs faster than alone. Jobs in different
// instances never interfere (MIG isolates SMs, L2 and memory controllers), so the rate depends
// on the job and its own instance only.
#pragma once

#include "sim/core/device.h"
#include "sim/core/job.h"

namespace gpumux {

struct MigDemand {
  double compute = 0.0;    // c, fraction of the GPU's SMs
  double bandwidth = 0.0;  // b, fraction of the GPU's memory bandwidth
};

struct MigSupply {
  double sm_fraction = 0.0;         // s
  double bandwidth_fraction = 0.0;  // m
};

MigDemand mig_demand(const JobSpec& job);
// Precondition: device.sms > 0 and device.mig_memory_slices > 0.
MigSupply mig_supply(const DeviceProfile& device, const MigProfile& profile);

// min(1, s/c, m/b) with zero demands dropped. In (0, 1] whenever s > 0 and m > 0.
double mig_instance_rate(const MigDemand& demand, const MigSupply& supply);

inline double mig_instance_rate(const JobSpec& job, const DeviceProfile& device,
                                const MigProfile& profile) {
  return mig_instance_rate(mig_demand(job), mig_supply(device, profile));
}

}  // namespace gpumux
