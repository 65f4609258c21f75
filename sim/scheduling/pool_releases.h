// The running jobs of a pooled cluster (sim/state/pool.h) ordered by expected finish time, each with
// the pool amount it will give back: the index EASY backfill reads to find the head's
// reservation without visiting every running job on every pass.
//
// A pooled job runs at full speed, so its expected finish is fixed when it starts. Entries are
// added at each start; an entry whose job has left (its slot no longer running, or running
// under a later version: JobTable::release and every start bump it) is dropped when a walk
// reaches it. Finished jobs hold the earliest times, so each is dropped by the next walk and a
// walk visits only the releases up to the shadow time (plus those dropped): O(that x log).
#pragma once

#include <cstdint>
#include <set>

#include "sim/state/job_table.h"
#include "sim/state/pool.h"
#include "sim/base/units.h"

namespace gpumux {

// The head's reservation: the earliest expected time its amount is free, and the amount spare
// beyond it then. shadow is infinity when it never is (all running releases counted).
struct PoolReservation {
  Time shadow = Time::infinity();
  PoolAmount extra;
};

class PoolReleases {
 public:
  // Records a job just started in the pool (phase running, its version and expected_finish
  // set by the start).
  void add(JobSlot slot, const ActiveJob& job);

  // The reservation for `need` given `free` now: every release of one instant counts before the
  // spare is measured. The same answer as ordering every running job's (expected_finish,
  // amount) and adding them up in time order. Drops the entries of jobs no longer running.
  PoolReservation reserve(const PoolAmount& need, const PoolAmount& free, const JobTable& jobs);

  // Drops the entries, from the earliest, of jobs that have left by `now` (a pooled job leaves
  // at its expected finish), so the index holds about as many entries as jobs run even when no
  // reservation is asked for a long time. Amortized O(log) per job.
  void drop_finished(Time now, const JobTable& jobs);

  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    Time finish;
    JobSlot slot = 0;
    std::uint32_t version = 0;
    PoolAmount amount;
    bool live(const JobTable& jobs) const {
      return jobs[slot].phase == JobPhase::kRunning && jobs[slot].version == version;
    }
    bool operator<(const Entry& o) const {
      if (finish != o.finish) return finish < o.finish;
      if (slot != o.slot) return slot < o.slot;
      return version < o.version;
    }
  };
  std::set<Entry> entries_;
};

}  // namespace gpumux
