// What a trace says about a job: its demands and characteristics, fixed for its whole life.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sim/base/units.h"
#include "sim/core/memory_profile.h"
#include "sim/core/service.h"
#include "sim/core/workload.h"

namespace gpumux {

enum class JobKind : std::uint8_t { kTraining, kInference };

std::string_view job_kind_name(JobKind kind);

struct JobSpec {
  std::string id;         // unique within a trace
  Time submit;            // arrival time
  int gpus = 1;           // gang size: all GPUs are granted at once or none; 0: a CPU-only job
  Time runtime;           // runtime alone on exclusive GPUs (the job's work); a service's lifetime
  double sm_util = 1.0;   // duty cycle alone: fraction of time its kernels keep the GPU busy, (0,1]
  double sm_share = 1.0;  // fraction of the GPU's SMs its kernels occupy while running, (0,1]
  // Memory-bandwidth utilization alone on the whole GPU: share of time memory is being read or
  // written (nvidia-smi utilization.memory / 100), [0, 1]. 0: not measured (the MIG speed model
  // then takes it as sm_util x sm_share: kernels as bandwidth-hungry as they are wide).
  double mem_bw_util = 0.0;
  MemoryMiB memory;  // peak device memory per GPU
  // CPU cores the whole job holds while it runs (over all its GPUs); 0: none. Counted against
  // the CPU capacity of a pooled cluster (cluster.pool) or of the nodes that declare CPUs
  // (Cluster::tracks_cpus: shared among its nodes in proportion to its GPUs there).
  double cpus = 0.0;
  // Memory over the job's progress as shares of `memory`; null: the peak the whole time.
  std::shared_ptr<const MemoryProfile> memory_profile;
  // Per-client device-memory limit (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT): allocations beyond it
  // fail for this job alone. Zero: none given.
  MemoryMiB memory_limit;
  // Compute share per GPU in milli-GPU (Kubernetes GPU-share requests, openb `gpu_milli`),
  // [1, 1000]; 1000 asks for a whole GPU. Bounds admission under `fractional` and is what the
  // share-aware placement policies count (sim/placement/share_placement.h).
  int gpu_milli = 1000;
  JobKind kind = JobKind::kTraining;
  std::string mig_profile;                   // requested MIG profile, empty when none
  std::string tenant;                        // empty when the trace has none
  int priority = 0;                          // larger is more important
  Time kernel_length = Time::from_us(1000);  // mean kernel length; drives time-slice switching
  // Kernels and CPU gaps of fixed length (a benchmark loop, the calibration probe) instead of
  // variable (exponential) ones: fixed lengths lock into alternation (trace.kernel_lengths).
  bool fixed_kernel_lengths = false;
  Time checkpoint_interval;  // zero: no checkpoints (a killed job restarts)
  // Non-null for an inference service (sim/core/service.h): `runtime` is then its wall-clock
  // lifetime, and its rate sets how fast it serves requests.
  std::shared_ptr<const ServiceSpec> service;
  // The workload the trace names (`workload` column), or the one trace.workload_mix drew; empty:
  // none. Resolved against the scenario's catalogue into `workload_facts` when the job is read
  // (traces/transforms/workload_source.h); without a catalogue both stay unused.
  std::string workload;
  std::shared_ptr<const WorkloadFacts> workload_facts;  // null: no catalogue facts
  // Bit i set: trace field i (traces/fields/job_fields.h JobField) came from a default, not the
  // trace; set by the trace readers, so that a filter can count the defaults of the jobs it
  // keeps. 0 for generated jobs.
  std::uint32_t defaulted_fields = 0;
};

}  // namespace gpumux
