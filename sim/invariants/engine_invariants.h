// The invariants only the engine can check, because they need its job table: asked by the
// engine when EngineOptions::check_invariants is on (off, they cost one untaken branch per
// event). Each throws InvariantViolation naming the job, the GPU and the time.
//
// - Work: a job completes when its work is done: at its completion event the work left
//   (brought up to date at its rate) is not positive, and not below minus one microsecond of
//   progress (the event is rounded up to a whole microsecond).
// - GPU bookkeeping: a GPU's per-resident lists (rates, slots, asked) match its residents; each
//   resident appears once, is running and lists the GPU; the GPU's memory in use is the sum of
//   its residents' memory, never negative.
// - Capacity once out of memory has been handled: the residents' memory fits the GPU; on a GPU
//   split into slots (MIG instances) each resident holds a slot of the layout and the memory of
//   a slot's residents fits the slot. A model that admits only what fits, or kills on out of
//   memory, never breaks these; over capacity is allowed only between a change and the model's
//   out-of-memory verdict, which comes before this check.
// - Allocation: under empty-GPU admission (SharingModel::requires_empty_gpu) a GPU holds at most
//   one job.
#pragma once

#include "sim/state/cluster.h"
#include "sim/state/job_table.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

// `left_us`: the job's exclusive-runtime microseconds still to do at `now`, its completion
// event, before clamping at zero; `progress_rate`: how fast left_us ran down (per us).
void check_completion_work(const ActiveJob& job, double left_us, double progress_rate, Time now);

// Checks GPU `g` after the engine handled out of memory on it and recomputed its rates.
void check_gpu_invariants(GpuIndex g, const Cluster& cluster, const JobTable& jobs,
                          const SharingModel& model, Time now);

}  // namespace gpumux
