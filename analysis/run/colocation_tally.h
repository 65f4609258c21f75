// How many jobs ran at measured co-location speeds (docs/workload-catalogue.md "What the run
// says"): an observer of the GPUs' rate changes, whose GpuLoad says which residents' rates are
// measured pair speeds of the workload catalogue (models/colocation_speed.h). Added to a run with
// a catalogue under a model that uses such speeds (SharingModel::uses_colocation_speeds).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/state/job_table.h"
#include "sim/state/observer.h"

namespace gpumux {

// Jobs by the source of their rates, over the jobs that started (each arrival once, whatever its
// restarts): measured + model = the jobs that ran.
struct ColocationCounts {
  std::uint64_t measured = 0;  // ran at a measured pair speed on some GPU, for some of the time
  std::uint64_t model = 0;     // every rate the model's (alone, 3+ jobs, pairs not measured)
  // Shared a GPU with a partner the catalogue measured as unable to run beside them (speed 0):
  // they ran at the model's rate then; counted in `measured` or `model` as well.
  std::uint64_t unrunnable = 0;
};

class ColocationTally : public EngineObserver {
 public:
  // `jobs`: the engine's (Engine::jobs()), to know who a GPU's resident slots hold.
  explicit ColocationTally(const JobTable& jobs) : jobs_(jobs) {}
  void on_job_started(Time now, const ActiveJob& job) override;
  void on_gpu_changed(Time now, GpuIndex index, const GpuState& gpu) override;
  ColocationCounts counts() const;

 private:
  // Sets `bit` of the job of arrival `ordinal`; counts it the first time.
  void mark(std::uint64_t ordinal, std::uint8_t bit);

  const JobTable& jobs_;
  std::vector<std::uint8_t> seen_;  // by arrival ordinal: kStarted, kMeasured, kUnrunnable bits
  std::uint64_t started_ = 0;
  std::uint64_t measured_ = 0;
  std::uint64_t unrunnable_ = 0;
};

}  // namespace gpumux
