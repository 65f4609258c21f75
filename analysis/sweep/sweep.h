// `gpumux sweep` in one process: the runs of a sweep file (sweep_plan.h) not yet finished in
// DIR (sweep_store.h), on a thread pool (parallel_tasks.h, the pool of `compare` and `plan`),
// or the share of one array task (--shard I/N). sweep_mpi.h hands the same runs out to MPI
// ranks. Whatever runs them, each run's result is its own folder, so the merge
// (sweep_merge.h) does not depend on the thread count, the ranks or the shards.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>

#include "analysis/sweep/sweep_plan.h"
#include "analysis/sweep/sweep_store.h"

namespace gpumux {

struct SweepShard {
  std::size_t index = 0;  // 0 <= index < count
  std::size_t count = 1;
};

// "I/N" with 0 <= I < N. Throws InputError naming --shard.
SweepShard parse_sweep_shard(const std::string& text);

struct SweepRequest {
  std::string sweep_file;
  std::string out_dir;
  int threads = 1;  // >= 1
  std::optional<SweepShard> shard;
  bool retry_failed = false;
};

struct SweepCounts {
  std::size_t total = 0;    // runs in the sweep
  std::size_t share = 0;    // runs of this process's share (all without --shard)
  std::size_t skipped = 0;  // of the share, finished before this command
  std::size_t ran = 0;
  std::size_t failed = 0;      // of those run
  std::size_t unrecorded = 0;  // failed and not even their error could be written
  double wall_seconds = 0.0;
};

// Progress of a sweep on standard error: a line at most every 2 s, one per failed run at once
// (with its error), and a last line with the run rate. Lines are never part of the results.
// Thread-safe.
class SweepProgress {
 public:
  SweepProgress(std::ostream* out, std::string prefix, std::size_t to_run, std::size_t skipped);
  void record(const SweepRunOutcome& outcome, const SweepRun& run);
  // The last line; returns the counts so far.
  SweepCounts finish(std::size_t total, std::size_t share, const std::string& workers);

 private:
  using Clock = std::chrono::steady_clock;
  std::ostream* out_;
  std::string prefix_;
  std::size_t to_run_;
  std::size_t skipped_;
  std::size_t done_ = 0;
  std::size_t failed_ = 0;
  std::size_t unrecorded_ = 0;
  Clock::time_point start_;
  Clock::time_point last_;
  std::mutex mutex_;
};

// Loads the sweep, prepares DIR and runs this process's pending runs on request.threads
// threads. A failed run is recorded and does not stop the others. Throws InputError for a bad
// sweep file or DIR before anything runs. The caller locks DIR (one sweep per DIR, one process
// per shard) and merges.
SweepCounts run_sweep_locally(const SweepRequest& request, std::ostream* progress);

}  // namespace gpumux
