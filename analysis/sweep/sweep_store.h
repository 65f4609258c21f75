// The folder a sweep writes (docs/sweeps.md "The output folder"):
//
//   DIR/sweep-plan.json        the expanded runs (sweep_plan.h), written before any run
//   DIR/runs/NNNNNN/           one folder per finished run, NNNNNN its index in six digits:
//       summary.json           a run that ended (plus jobs.csv, timeseries.csv with
//                              "run_files": "scenario"), written by run_scenario as a whole
//       error.json             or a run that failed: {index, variant, seed, kind, error}
//   DIR/sweep.csv, sweep.json  the merge (sweep_merge.h)
//
// A run folder appears whole or not at all (output_folder.h), so a process killed at any
// moment (SIGKILL included) leaves only finished runs behind, and the next sweep into DIR runs
// the others. Any number of processes may run disjoint runs into the same DIR at once (MPI
// workers, array shards), which is why each run's result is its own folder and why the plan
// file holds no path: every process writes the same bytes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/sweep/sweep_plan.h"

namespace gpumux {

// DIR/runs/NNNNNN.
std::string sweep_run_folder(const std::string& dir, std::size_t index);
std::string sweep_plan_path(const std::string& dir);

// Writes DIR/sweep-plan.json (atomically) when absent, else checks that it is this plan. Throws
// InputError when DIR is not a folder, holds another sweep's plan (a changed sweep or scenario
// file: resuming would mix two sweeps), records inputs whose bytes have changed since
// (sweep_inputs.h: a trace edited before a resume or between shards), or exists, is not empty
// and holds no plan (it would mix a sweep with someone's files).
void prepare_sweep_folder(const SweepPlan& plan, const std::string& dir);

// Reads DIR/sweep-plan.json. Throws InputError naming DIR when there is none.
SweepPlan read_sweep_plan(const std::string& dir);

enum class SweepRunState { kMissing, kDone, kFailed };
SweepRunState sweep_run_state(const std::string& dir, std::size_t index);

// Runs with index % shard_count == shard_index that are not finished, ascending. A failed run
// counts as finished (its error is its result: runs are deterministic) unless retry_failed.
std::vector<std::size_t> pending_sweep_runs(const SweepPlan& plan, const std::string& dir,
                                            std::size_t shard_index, std::size_t shard_count,
                                            bool retry_failed);

struct SweepRunOutcome {
  std::size_t index = 0;
  bool ok = false;
  bool recorded = true;  // false: not even error.json could be written (the run stays missing)
  std::string error;     // when !ok
  double wall_seconds = 0.0;
};

// Runs `run` (which must carry its document: a plan from load_sweep) and writes its folder:
// summary.json, or error.json when the run throws. Never throws: a failure is the outcome.
SweepRunOutcome execute_sweep_run(const SweepRun& run, const std::string& dir);

// The error text recorded for a failed run ("" when unreadable).
std::string recorded_sweep_error(const std::string& dir, std::size_t index);

}  // namespace gpumux
