// Profile-guided MIG sizing (the `sizing` parameter of the mig models): a job's instance is
// chosen from what it needs, as MISO predicts each job's best slice from a profiling run under
// MPS, instead of from its memory alone.
//
// The profile of a job is its speed in each MIG profile of the device, predicted from the trace's
// sm_share, sm_util and mem_bw_util by the same speed model the model charges
// (models/mig/instance_rate.h: the fitted form by default, or the roofline). A profile P is
// within the bound
// when P holds the job's peak memory and
//     rate(P) x max_slowdown >= best,
// best = the highest rate over the profiles on offer that hold the job's memory: what the job
// gets in the largest instance it could ever be given (the mig model offers the profiles of its
// layouts, so a static layout without 7g.40gb measures a wide job against its 4g.20gb).
// max_slowdown = 1 asks for the job's full speed; larger bounds let jobs take smaller slices,
// slower, leaving room for others. Since the profile comes from the rate model itself, the
// prediction is exact within gpumux: it measures what a perfect profiler would buy, not a
// profiler's error.
#pragma once

#include <span>

#include "models/mig/instance_rate.h"
#include "sim/core/device.h"
#include "sim/core/job.h"

namespace gpumux {

// The highest roofline rate of `job` over `offered` (profiles of `device`) that hold its peak
// memory; 0 when none does.
double best_instance_rate(const DeviceProfile& device, const JobSpec& job,
                          std::span<const MigProfile* const> offered,
                          const MigSpeedParams& speed = {});
// The same over every MIG profile of the device.
double best_instance_rate(const DeviceProfile& device, const JobSpec& job,
                          const MigSpeedParams& speed = {});

// Whether an instance of `profile` hosts `job` within `max_slowdown` of `best` (above).
// Precondition: max_slowdown >= 1.
bool within_slowdown(const DeviceProfile& device, const MigProfile& profile, const JobSpec& job,
                     double max_slowdown, double best, const MigSpeedParams& speed = {});

// The smallest profile of the device within the bound, every profile on offer, ordered as
// select_profile orders them (memory, compute slices, memory slices, a plain profile before its
// "+me" twin), or nullptr when no profile holds the job.
const MigProfile* sized_profile(const DeviceProfile& device, const JobSpec& job,
                                double max_slowdown, const MigSpeedParams& speed = {});

}  // namespace gpumux
