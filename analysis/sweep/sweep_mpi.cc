#include "analysis/sweep/sweep_mpi.h"

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <thread>
#include <vector>

#include "analysis/output/output_folder.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

constexpr int kTagAsk = 1;   // worker -> coordinator: {last index or -1, status, wall us}
constexpr int kTagWork = 2;  // coordinator -> worker: {index, or -1: stop}
constexpr std::int64_t kStop = -1;
enum Status : std::int64_t { kFailed = 0, kOk = 1, kUnrecorded = 2 };

// MPI_Init here, MPI_Finalize on every way out.
class MpiSession {
 public:
  MpiSession() {
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

// Waits for one message without spinning a core: MPI_Recv busy-polls in Open MPI, which on an
// oversubscribed node takes a core from the runs. The pause grows to 2 ms while nothing comes.
void receive_politely(std::int64_t* buffer, int count, int source, int tag, MPI_Status* status) {
  MPI_Request request;
  MPI_Irecv(buffer, count, MPI_INT64_T, source, tag, MPI_COMM_WORLD, &request);
  auto pause = std::chrono::microseconds(20);
  for (int done = 0;;) {
    MPI_Test(&request, &done, status);
    if (done) return;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
}

void work(const SweepPlan& plan, const std::string& dir, std::ostream* progress, int rank) {
  std::int64_t report[3] = {kStop, kOk, 0};
  while (true) {
    MPI_Send(report, 3, MPI_INT64_T, 0, kTagAsk, MPI_COMM_WORLD);
    std::int64_t index = kStop;
    receive_politely(&index, 1, 0, kTagWork, MPI_STATUS_IGNORE);
    if (index < 0 || static_cast<std::size_t>(index) >= plan.runs.size()) return;
    const SweepRunOutcome outcome = execute_sweep_run(plan.runs[index], dir);
    if (!outcome.recorded && progress) {
      *progress << "[gpumux sweep rank " << rank << "] run " << index << ": " << outcome.error
                << "\n"
                << std::flush;
    }
    report[0] = index;
    report[1] = outcome.ok ? kOk : (outcome.recorded ? kFailed : kUnrecorded);
    report[2] = static_cast<std::int64_t>(outcome.wall_seconds * 1e6);
  }
}

SweepCounts coordinate(const SweepPlan& plan, const std::vector<std::size_t>& pending,
                       const std::string& dir, std::ostream* progress, int ranks) {
  SweepProgress tracker(progress, "[gpumux sweep]", pending.size(),
                        plan.runs.size() - pending.size());
  std::size_t next = 0;
  int active = ranks - 1;
  while (active > 0) {
    std::int64_t report[3];
    MPI_Status status;
    receive_politely(report, 3, MPI_ANY_SOURCE, kTagAsk, &status);
    if (report[0] >= 0 && static_cast<std::size_t>(report[0]) < plan.runs.size()) {
      SweepRunOutcome outcome;
      outcome.index = static_cast<std::size_t>(report[0]);
      outcome.ok = report[1] == kOk;
      outcome.recorded = report[1] != kUnrecorded;
      outcome.wall_seconds = static_cast<double>(report[2]) / 1e6;
      if (!outcome.ok) {
        outcome.error = outcome.recorded
                            ? recorded_sweep_error(dir, outcome.index)
                            : "its error could not be written (see rank " +
                                  std::to_string(status.MPI_SOURCE) + "'s message)";
      }
      tracker.record(outcome, plan.runs[outcome.index]);
    }
    std::int64_t index = kStop;
    if (next < pending.size()) {
      index = static_cast<std::int64_t>(pending[next++]);
    } else {
      --active;
    }
    MPI_Send(&index, 1, MPI_INT64_T, status.MPI_SOURCE, kTagWork, MPI_COMM_WORLD);
  }
  const int workers = ranks - 1;
  return tracker.finish(plan.runs.size(), plan.runs.size(),
                        std::to_string(workers) + " MPI worker rank" + (workers == 1 ? "" : "s"));
}

}  // namespace

MpiSweepOutcome run_sweep_mpi(const SweepRequest& request, std::ostream* progress) {
  MpiSession mpi;
  MpiSweepOutcome outcome;
  outcome.coordinator = mpi.rank() == 0;

  // Every rank loads the sweep (each needs the runs' documents); rank 0 also prepares DIR.
  // Then all learn whether every rank could, so that none waits for a rank that gave up.
  std::optional<SweepPlan> plan;
  std::optional<FolderLock> lock;
  std::vector<std::size_t> pending;
  std::string error;
  std::exception_ptr caught;
  try {
    plan = load_sweep(request.sweep_file);
    if (outcome.coordinator) {
      lock.emplace(request.out_dir);
      prepare_sweep_folder(*plan, request.out_dir);
      pending = pending_sweep_runs(*plan, request.out_dir, 0, 1, request.retry_failed);
    }
  } catch (const InputError& e) {
    error = e.what();
    caught = std::current_exception();
  }
  int ok = error.empty() ? 1 : 0;
  std::vector<int> all_ok(mpi.size());
  MPI_Allgather(&ok, 1, MPI_INT, all_ok.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::string failed_ranks;
  for (int r = 0; r < mpi.size(); ++r) {
    if (!all_ok[r]) failed_ranks += (failed_ranks.empty() ? "" : ", ") + std::to_string(r);
  }
  if (!failed_ranks.empty()) {
    // Rank 0's own error is the one to read; otherwise each failing rank names its own.
    if (!ok && outcome.coordinator) std::rethrow_exception(caught);
    if (!ok && all_ok[0]) throw InputError("MPI rank " + std::to_string(mpi.rank()), "", error);
    if (outcome.coordinator) {
      throw InputError(request.sweep_file, "",
                       "MPI ranks " + failed_ranks + " could not load the sweep (their errors "
                                                     "are above); nothing was run");
    }
    outcome.failed_elsewhere = true;
    return outcome;
  }

  try {
    if (outcome.coordinator) {
      outcome.counts = coordinate(*plan, pending, request.out_dir, progress, mpi.size());
    } else {
      work(*plan, request.out_dir, progress, mpi.rank());
    }
  } catch (const std::exception& e) {
    // Only a bug gets here (runs catch their own errors); the other ranks wait on this one.
    if (progress) *progress << "internal error on MPI rank " << mpi.rank() << ": " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return outcome;
}

}  // namespace gpumux
