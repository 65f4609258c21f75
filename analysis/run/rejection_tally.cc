#include "analysis/run/rejection_tally.h"

#include <algorithm>

namespace gpumux {

void RejectionTally::on_job_rejected(Time /*now*/, const ActiveJob& job, std::string_view reason) {
  auto it = std::find_if(counts_.begin(), counts_.end(),
                         [&](const RejectionCount& c) { return c.reason == reason; });
  if (it == counts_.end()) {
    counts_.push_back({std::string(reason), 0, MemoryMiB(0), 0, 0, ""});
    it = counts_.end() - 1;
  }
  ++it->jobs;
  it->most_memory = std::max(it->most_memory, job.spec.memory);
  it->most_gpus = std::max(it->most_gpus, job.spec.gpus);
  if (!job.spec.mig_profile.empty()) {
    if (it->profile_requests++ == 0) it->profile = job.spec.mig_profile;
  }
}

}  // namespace gpumux
