// Measured co-location speeds from the workload catalogue (docs/workload-catalogue.md "Which
// value a job gets"), used by the time-slicing and MPS models in place of their own rates.
//
// The rule: on a GPU holding exactly two jobs, a job's rate is its measured speed beside the
// other (the `colocation` entry of its workload, on this GPU's device type, for the partner's
// workload), used as at most 1, instead of the model's. Each direction stands alone: a job whose
// speed beside this partner was not measured keeps the model's rate even when the partner's was.
// Everywhere else the model's rates stand: a job alone, a GPU of three or more jobs (the
// catalogue holds pairs; no law composing pair speeds into triples is assumed), a job without a
// workload, a workload without facts on this device type.
//
// A measured speed of 0 records a pair that could not run together (in Gavel's data, mostly out
// of memory). Admission stays the model's (its memory check decides who may share), so such a
// pair can still meet here: both keep the model's rates and are flagged (GpuLoad::
// unrunnable_pair), so that the run says how many jobs met a pair the measurement could not run.
//
// The GPU's load (SM-busy share, sharing overhead) stays the model's: the catalogue measured
// speeds, not how busy a pair kept the GPU.
//
// Allocation-free: the jobs carry their workloads' facts (resolved when they were read), and the
// lookup compares the device's and the partner's names against the few the workload measured.
#pragma once

#include <span>

#include "sim/core/device.h"
#include "sim/core/job.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

// The speed measured for `job` beside one job of `partner`'s workload on `device` (may be 0: the
// pair could not run), or nullptr when the catalogue has none (either job without facts).
const double* measured_colocation_speed(const JobSpec& job, const JobSpec& partner,
                                        const DeviceProfile& device);

// Replaces the model's `rates` of `gpu`'s residents by measured pair speeds where the rule above
// says so, and sets load.measured_pair and load.unrunnable_pair (both 0 when nothing applies).
// Precondition: rates.size() == gpu.residents.size(), each rate the model's.
void apply_colocation_speeds(const GpuView& gpu, std::span<double> rates, GpuLoad& load);

}  // namespace gpumux
