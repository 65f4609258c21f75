// `exclusive`: one job per GPU, every job at rate 1. The baseline every saving is measured
// against. A job whose peak memory exceeds the device's is never admitted (it would fail).
#pragma once

#include "sim/core/sharing_model.h"

namespace gpumux {

class ExclusiveModel : public SharingModel {
 public:
  std::string_view name() const override { return "exclusive"; }
  bool admits(const GpuView& gpu, const JobSpec& job) const override;
  QueueReason refusal(const GpuView& gpu, const JobSpec& job) const override;
  bool requires_empty_gpu() const override { return true; }
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override;
  std::vector<ModelParameter> parameters() const override { return {}; }
};

}  // namespace gpumux
