// fifo-backfill: EASY backfilling over the fifo queue (fifo_queue.h).
//
// Jobs start from the head while they fit. When the head does not, it gets a reservation at the
// "shadow time" (the earliest time enough GPUs are expected to be empty, estimated from the
// running jobs' current rates); a job further back may start now if it fits and is expected to
// finish before the shadow time (estimated with its exclusive runtime), or if it only uses GPUs
// the head will not need. At most `backfill_depth` queued jobs are examined per pass, which
// bounds a pass's cost on long queues.
//
// When the head asks for node CPU cores the reservation counts cores as well as GPUs
// (sim/state/core_reservation.h). On a pooled cluster it is the earliest time the head's pool
// amount is expected to be free, and the spare amount then, GPUs and CPUs alike (from the
// running jobs ordered by finish time, sim/scheduling/pool_releases.h).
#pragma once

#include <utility>
#include <vector>

#include "sim/scheduling/fifo_queue.h"
#include "sim/scheduling/pool_releases.h"
#include "sim/state/core_reservation.h"

namespace gpumux {

class BackfillQueue : public FifoQueue {
 public:
  // Precondition: backfill_depth >= 1.
  explicit BackfillQueue(int backfill_depth) : backfill_depth_(backfill_depth) {}

  void schedule(const SchedulePass& pass, JobStarter& starter) override;

 private:
  // Earliest expected time at which the head's GPUs are empty, and how many GPUs beyond the
  // head's need will be empty then.
  struct Reservation {
    Time shadow = Time::infinity();
    long extra_gpus = 0;
  };
  Reservation reserve_for(const ActiveJob& head, const Cluster& cluster, const JobTable& jobs,
                          const std::vector<JobSlot>& running);
  void backfill(const SchedulePass& pass, GpuViewBuilder& views, JobStarter& starter);
  void schedule_pooled(const SchedulePass& pass, JobStarter& starter);

  int backfill_depth_;
  CoreReservation core_reservation_;  // a head asking for node CPUs
  std::vector<std::pair<Time, int>> releases_;
  PoolReleases pool_releases_;  // on a pooled cluster: its starts' releases
};

}  // namespace gpumux
