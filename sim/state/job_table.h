// The engine's table of jobs that have arrived and not yet left (queued or running).
//
// Slots are recycled, so a replay of millions of jobs keeps a table the size of the peak number
// of jobs in the system, and a recycled slot reuses its vectors' and strings' storage.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/state/cluster.h"
#include "sim/core/job.h"
#include "sim/core/sharing_model.h"
#include "sim/state/topology.h"
#include "sim/base/units.h"

namespace gpumux {

enum class JobPhase : std::uint8_t {
  kFree,
  kQueued,
  kRunning,
  kRetryWait,  // killed; back in the queue after the retry delay
};

struct ActiveJob {
  JobSpec spec;
  std::uint64_t ordinal = 0;  // arrival order, 0-based
  JobPhase phase = JobPhase::kFree;
  // A CPU-only job's node while it runs on a cluster of nodes (no GPU). Beside `phase`, in what
  // would be padding: the fields the engine reads per event keep their places.
  NodeIndex cpu_node = 0;
  Time start;
  Time last_update;                 // when remaining_us was last brought up to date
  Time expected_finish;             // of the pending completion event
  double remaining_us = 0.0;        // exclusive-runtime microseconds of work still to do
  double rate = 0.0;                // current progress rate, (0, 1]
  std::uint32_t version = 0;        // bumped whenever a pending completion event becomes stale
  std::uint32_t running_index = 0;  // position in the engine's running list
  std::uint64_t refresh_mark = 0;   // engine bookkeeping: last rate refresh that saw this job
  std::vector<GpuIndex> gpus;
  LinkKind span = LinkKind::kSameGpu;
  std::uint32_t kills = 0;   // times the job was killed (e.g. out of memory)
  MemoryMiB current_memory;  // memory in use on each of its GPUs while running
  double next_memory_change_us = MemoryProfile::kNever;  // progress of the next profile step
  double lost_work_us = 0.0;  // exclusive-runtime microseconds redone (kills, migrations)
  // When the running process next hits a fatal GPU fault (drawn at each start; infinity when
  // fatal faults are off). Its event takes the place of the completion when it comes first.
  Time fault_at = Time::infinity();
  // Checkpoint-restart migration (MigrationPlan, sim/engine/engine_migration.cc).
  std::uint32_t migrations = 0;  // times the job was moved off a GPU being reconfigured
  bool checkpointing = false;    // writing a migration checkpoint: holds its GPUs, no progress
  double checkpointed_us = 0.0;  // work saved by its last migration checkpoint
  Time checkpoint_time;          // length of the migration checkpoint being written
  Time restart_time;             // restore time its next start pays (set by a migration)
  Time stalled_until;            // no progress before this time (restoring after a restart)
};

class JobTable {
 public:
  JobSlot acquire() {
    if (!free_.empty()) {
      JobSlot s = free_.back();
      free_.pop_back();
      return s;
    }
    slots_.emplace_back();
    return static_cast<JobSlot>(slots_.size() - 1);
  }
  void release(JobSlot s) {
    ActiveJob& j = slots_[s];
    j.phase = JobPhase::kFree;
    j.gpus.clear();
    j.kills = 0;
    j.lost_work_us = 0.0;
    j.migrations = 0;
    j.checkpointing = false;
    j.checkpointed_us = 0.0;
    j.checkpoint_time = Time::zero();
    j.restart_time = Time::zero();
    j.stalled_until = Time::zero();
    ++j.version;
    free_.push_back(s);
  }
  ActiveJob& operator[](JobSlot s) { return slots_[s]; }
  const ActiveJob& operator[](JobSlot s) const { return slots_[s]; }
  std::size_t capacity() const { return slots_.size(); }

 private:
  std::vector<ActiveJob> slots_;
  std::vector<JobSlot> free_;
};

// Builds the GpuView a sharing model sees, reusing one scratch buffer: a view is valid only
// until the next call.
class GpuViewBuilder {
 public:
  GpuViewBuilder(const Cluster& cluster, const JobTable& jobs) : cluster_(cluster), jobs_(jobs) {
    scratch_.reserve(64);
    memory_.reserve(64);
  }
  GpuView view(GpuIndex g) {
    const GpuState& gpu = cluster_.gpu(g);
    scratch_.clear();
    memory_.clear();
    for (JobSlot s : gpu.residents) {
      scratch_.push_back(&jobs_[s].spec);
      memory_.push_back(jobs_[s].current_memory);
    }
    return GpuView{cluster_.device_of(g),
                   scratch_,
                   gpu.memory_used,
                   memory_,
                   gpu.layout,
                   gpu.slots,
                   gpu.asked};
  }

 private:
  const Cluster& cluster_;
  const JobTable& jobs_;
  std::vector<const JobSpec*> scratch_;
  std::vector<MemoryMiB> memory_;
};

}  // namespace gpumux
