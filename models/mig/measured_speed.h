// A job's rate in a MIG instance, measured where the workload catalogue has it
// (docs/workload-catalogue.md): the speed measured for the job's workload on this device in this
// instance's profile, else the speed model's (instance_rate.h). Measured speeds above 1 (noise
// around the full-GPU reference) are used as 1: a job is never faster than alone.
//
// Allocation-free: the job carries its workload's facts (resolved when it was read), and the
// lookup compares the device's and the profile's names against the few the workload measured.
#pragma once

#include "models/mig/instance_rate.h"
#include "sim/core/device.h"
#include "sim/core/job.h"

namespace gpumux {

// The measured speed of `job` in `profile` on `device`, or nullptr when the catalogue has none.
const double* measured_mig_speed(const JobSpec& job, const DeviceProfile& device,
                                 const MigProfile& profile);

// The measured speed (at most 1) where there is one, else mig_instance_rate(job, supply, params).
// Precondition: `supply` is mig_supply(device, profile).
double mig_job_rate(const JobSpec& job, const DeviceProfile& device, const MigProfile& profile,
                    const MigSupply& supply, const MigSpeedParams& params);

inline double mig_job_rate(const JobSpec& job, const DeviceProfile& device,
                           const MigProfile& profile, const MigSpeedParams& params) {
  return mig_job_rate(job, device, profile, mig_supply(device, profile), params);
}

}  // namespace gpumux
