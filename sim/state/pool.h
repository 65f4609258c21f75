// A pooled cluster (`cluster.pool`): one node whose GPU capacity is a single amount counted in
// fractions of a GPU, not per-GPU bins, and whose CPU capacity is a number of cores. A job takes
// its GPU amount (gpus x sm_share: a 0.25-GPU request takes a quarter of one GPU's capacity) and
// its CPU cores at once or not at all, and runs at full speed (rate 1) whatever else runs: the
// PAI 2020 simulator's cluster (cluster-trace-gpu-v2020/simulator, one node of N GPUs).
//
// Amounts are counted in hundredths (of a GPU, of a core) as that simulator does: a request is
// rounded to the nearest hundredth, ties to even (Python's round), so sums are exact.
#pragma once

#include <cstdint>

#include "sim/core/job.h"

namespace gpumux {

// Hundredths of a GPU and of a CPU core.
struct PoolAmount {
  std::int64_t gpu = 0;
  std::int64_t cpu = 0;
  bool operator==(const PoolAmount&) const = default;
  bool operator<(const PoolAmount& o) const { return gpu != o.gpu ? gpu < o.gpu : cpu < o.cpu; }
};

struct PoolSpec {
  int gpus = 0;               // capacity: this many GPUs' worth, >= 1
  double cpus_per_gpu = 0.0;  // CPU capacity = gpus x cpus_per_gpu cores, >= 0
};

// Rounds x to the nearest integer, ties to even (Python 3's round()).
std::int64_t round_half_even(double x);

// The pool's capacity in hundredths.
PoolAmount pool_capacity(const PoolSpec& pool);

// What a job takes from the pool: gpus x sm_share GPUs and cpus cores, in hundredths.
PoolAmount pool_request(const JobSpec& job);

}  // namespace gpumux
