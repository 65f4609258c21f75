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

double mig_instance_rate(const MigDemand& demand, const MigSupply& supply) {
  double rate = 1.0;
  if (demand.compute > 0.0) rate = std::min(rate, supply.sm_fraction / demand.compute);
  if (demand.bandwidth > 0.0) rate = std::min(rate, supply.bandwidth_fraction / demand.bandwidth);
  return rate;
}

}  // namespace gpumux
