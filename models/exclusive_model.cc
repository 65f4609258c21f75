#include "models/exclusive_model.h"

#include <algorithm>

namespace gpumux {

bool ExclusiveModel::admits(const GpuView& gpu, const JobSpec& job) const {
  return gpu.residents.empty() && job.memory <= gpu.device.memory;
}

QueueReason ExclusiveModel::refusal(const GpuView& gpu, const JobSpec&) const {
  return gpu.residents.empty() ? QueueReason::kMemory : QueueReason::kGpus;
}

void ExclusiveModel::compute_rates(const GpuView& gpu, std::span<double> rates,
                                   GpuLoad& load) const {
  std::fill(rates.begin(), rates.end(), 1.0);
  load.useful_busy = std::min(1.0, gpu.residents.front()->sm_util);
  load.overhead = 0.0;
}

}  // namespace gpumux
