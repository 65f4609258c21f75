// `gpumux sweep --shard auto`: this array task's shard (index and count) read from the
// environment its scheduler sets, so that one job script serves every task (docs/sweeps.md
// "Array shards").
//
//   Slurm array jobs:        SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN and _MAX
//                            (index = ID - MIN, count = MAX - MIN + 1), or with
//                            SLURM_ARRAY_TASK_COUNT alone (index = ID, count = COUNT). A stepped
//                            array (--array=0-10:2) is refused: its IDs are not 0..count-1.
//   Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX (index); the count is not in a pod's
//                            environment, so it comes from --shard-count N or, failing that,
//                            GPUMUX_SHARD_COUNT (set it to the Job's `completions`).
//
// A count given with --shard-count under Slurm must agree with Slurm's.
#pragma once

#include <cstddef>
#include <optional>

#include "analysis/sweep/mpi_launch.h"
#include "analysis/sweep/sweep.h"

namespace gpumux {

// Throws InputError naming --shard auto and the variable when neither environment is present,
// both are, a value is no integer, or the values disagree (an index outside the count).
SweepShard shard_from_environment(const EnvironmentLookup& env,
                                  std::optional<std::size_t> shard_count);

}  // namespace gpumux
