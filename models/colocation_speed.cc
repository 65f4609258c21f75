#include "models/colocation_speed.h"

#include <algorithm>

namespace gpumux {

const double* measured_colocation_speed(const JobSpec& job, const JobSpec& partner,
                                        const DeviceProfile& device) {
  if (!job.workload_facts || !partner.workload_facts) return nullptr;
  const WorkloadDeviceFacts* facts = job.workload_facts->on(device.name);
  return facts ? facts->colocation_speed(partner.workload_facts->name) : nullptr;
}

void apply_colocation_speeds(const GpuView& gpu, std::span<double> rates, GpuLoad& load) {
  load.measured_pair = 0;
  load.unrunnable_pair = 0;
  if (gpu.residents.size() != 2) return;
  const JobSpec& a = *gpu.residents[0];
  const JobSpec& b = *gpu.residents[1];
  if (!a.workload_facts || !b.workload_facts) return;  // runs without a catalogue stop here
  const double* speed[2] = {measured_colocation_speed(a, b, gpu.device),
                            measured_colocation_speed(b, a, gpu.device)};
  for (std::size_t r = 0; r < 2; ++r) {
    if (!speed[r]) continue;
    if (*speed[r] > 0.0) {
      rates[r] = std::min(1.0, *speed[r]);
      load.measured_pair |= static_cast<std::uint8_t>(1u << r);
    } else {
      load.unrunnable_pair |= static_cast<std::uint8_t>(1u << r);
    }
  }
}

}  // namespace gpumux
