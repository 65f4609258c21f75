// A job's request kind: what a placement policy that places by kind
// (PlacementPolicy::places_by_kind) reads of a job under a model with admission by key
// (SharingModel::admission_by_key). Two queued jobs of one kind get the same answer from such a
// policy on the same cluster state, so a queue asks once per kind, not once per job, until the
// cluster changes (sim/scheduling/greedy_queue.h, sim/placement/refused_kinds.h).
#pragma once

#include <compare>
#include <cstdint>

#include "sim/core/job.h"
#include "sim/core/sharing_model.h"
#include "sim/state/cluster.h"

namespace gpumux {

struct RequestKind {
  int gpus = 0;                // gang size; 0: a CPU-only job
  int gpu_milli = 0;           // per GPU; 0 for a CPU-only job
  std::int64_t cpu = 0;        // hundredths of a core (job_cpu_hundredths)
  std::int64_t admission = 0;  // SharingModel::admission_key; 0 for a CPU-only job
  auto operator<=>(const RequestKind&) const = default;
};

// Precondition: model.admission_by_key().
inline RequestKind request_kind(const SharingModel& model, const JobSpec& job) {
  if (job.gpus == 0) return RequestKind{0, 0, job_cpu_hundredths(job), 0};
  return RequestKind{job.gpus, job.gpu_milli, job_cpu_hundredths(job), model.admission_key(job)};
}

}  // namespace gpumux
