#include "models/mig/instance_rate.h"

#include <algorithm>

namespace gpumux {

MigDemand mig_demand(const JobSpec& job) {
  const double c = std::max(0.0, job.sm_share);
  return {c, c * std::max(0.0, job.sm_util)};
}

MigSupply mig_supply(const DeviceProfile& device, const MigProfile& profile) {
  return {
      static_cast<double>(profile.sms) / static_cast<double>(device.sms),
      static_cast<double>(profile.memory_slices) / static_cast<double>(device.mig_memory_slices)};
}

double mig_roofline_rate(const MigDemand& demand, const MigSupply& supply) {
  double rate = 1.0;
  if (demand.compute > 0.0) rate = std::min(rate, supply.sm_fraction / demand.compute);
  if (demand.bandwidth > 0.0) rate = std::min(rate, supply.bandwidth_fraction / demand.bandwidth);
  return rate;
}

double mig_kernel_slowdown(const JobSpec& job, const MigSupply& supply,
                           const MigSpeedParams& params) {
  const double u = std::clamp(job.sm_util, 0.0, 1.0);
  const double c = std::clamp(job.sm_share, 0.0, 1.0);
  const double bw = job.mem_bw_util > 0.0 ? job.mem_bw_util : u * c;
  const double beta = u > 0.0 ? std::min(1.0, bw / u) : c;
  const double width = std::clamp(params.width_base + params.width_per_bandwidth * beta, 0.0, 1.0);
  const double w = std::min(c, width);
  double k = 1.0;
  if (supply.sm_fraction > 0.0) k = std::max(k, w / supply.sm_fraction);
  if (supply.bandwidth_fraction > 0.0) k = std::max(k, beta / supply.bandwidth_fraction);
  return k;
}

double mig_instance_rate(const JobSpec& job, const MigSupply& supply,
                         const MigSpeedParams& params) {
  if (params.model == MigSpeedModel::kRoofline) {
    return mig_roofline_rate(mig_demand(job), supply);
  }
  const double u = std::clamp(job.sm_util, 0.0, 1.0);
  const double k = mig_kernel_slowdown(job, supply, params);
  // u k + 1 - u written as 1 + u (k - 1): never below 1, so the rate never exceeds 1.
  return 1.0 / (1.0 + u * (k - 1.0));
}

}  // namespace gpumux
