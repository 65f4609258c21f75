#include "models/mig/measured_speed.h"

#include <algorithm>

namespace gpumux {

const double* measured_mig_speed(const JobSpec& job, const DeviceProfile& device,
                                 const MigProfile& profile) {
  if (!job.workload_facts) return nullptr;
  const WorkloadDeviceFacts* facts = job.workload_facts->on(device.name);
  return facts ? facts->mig_speed(profile.name) : nullptr;
}

double mig_job_rate(const JobSpec& job, const DeviceProfile& device, const MigProfile& profile,
                    const MigSupply& supply, const MigSpeedParams& params) {
  if (const double* speed = measured_mig_speed(job, device, profile)) {
    return std::min(1.0, *speed);
  }
  return mig_instance_rate(job, supply, params);
}

}  // namespace gpumux
