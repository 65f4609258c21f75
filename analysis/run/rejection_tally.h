// The jobs a run rejected (the engine can never run them on the cluster as built), counted by
// the engine's reason, for callers that must tell why and not only how many: `gpumux plan`
// stops searching sizes when the reasons say no size can cure them. summary.json counts them
// only as `jobs.rejected`, so that its shape stays the same for every run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/units.h"
#include "sim/state/observer.h"

namespace gpumux {

struct RejectionCount {
  std::string reason;                  // the engine's words (Engine::unplaceable_reason)
  std::uint64_t jobs = 0;              // rejected for it
  MemoryMiB most_memory;               // the largest peak memory per GPU among them
  int most_gpus = 0;                   // the largest gang among them
  std::uint64_t profile_requests = 0;  // of them, jobs that name a MIG profile
  std::string profile;                 // the first such profile (e.g. "1g.5gb")
};

// Collects RejectionCount per reason, in order of the reason's first rejection.
class RejectionTally : public EngineObserver {
 public:
  void on_job_rejected(Time now, const ActiveJob& job, std::string_view reason) override;
  const std::vector<RejectionCount>& counts() const { return counts_; }

 private:
  std::vector<RejectionCount> counts_;  // few reasons: a list beats a map
};

}  // namespace gpumux
