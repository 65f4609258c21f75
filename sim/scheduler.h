// The job queue and the policy deciding which queued jobs start.
//
// - fifo: strict arrival order; when the head does not fit, nothing behind it starts.
// - fifo-backfill: EASY backfilling. When the head does not fit, it gets a reservation at the
//   "shadow time" (the earliest time enough GPUs are expected to be empty, estimated from the
//   running jobs' current rates); a job further back may start now if it fits and is expected to
//   finish before the shadow time (estimated with its exclusive runtime), or if it only uses GPUs
//   the head will not need. At most `backfill_depth` queued jobs are examined per pass, which
//   bounds a pass's cost on long queues.
#pragma once

#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster.h"
#include "sim/job_table.h"
#include "sim/placement.h"
#include "sim/sharing_model.h"

namespace gpumux {

enum class QueuePolicy { kFifo, kFifoBackfill };

// Throws std::invalid_argument for an unknown name; valid: queue_policy_names().
QueuePolicy parse_queue_policy(std::string_view name);
std::string_view queue_policy_name(QueuePolicy policy);
std::vector<std::string> queue_policy_names();

// Receives the scheduler's decisions; the engine implements it.
class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual void start(JobSlot job, std::span<const GpuIndex> gpus) = 0;
};

class Scheduler {
 public:
  Scheduler(QueuePolicy policy, std::unique_ptr<PlacementPolicy> placement, int backfill_depth);

  void enqueue(JobSlot job) { queue_.push_back(job); }
  // A killed job returns at the head: it had already been chosen once.
  void requeue(JobSlot job) { queue_.push_front(job); }
  std::size_t queued() const { return queue_.size(); }
  // The job at the head of the queue. Precondition: queued() > 0.
  JobSlot head() const { return queue_.front(); }
  // The i-th queued job (0 = head). Precondition: i < queued().
  JobSlot queued_at(std::size_t i) const { return queue_[i]; }
  const PlacementPolicy& placement() const { return *placement_; }
  QueuePolicy policy() const { return policy_; }

  // Starts every job the policy allows at `now`. `running` lists the running jobs (for the
  // backfill reservation); it is read after launcher.start() calls, which may grow it.
  void schedule(Time now, const Cluster& cluster, const SharingModel& model, JobTable& jobs,
                const std::vector<JobSlot>& running, Launcher& launcher);

 private:
  // Earliest expected time at which `needed` more GPUs are empty, and how many GPUs beyond the
  // head's need will be empty then.
  struct Reservation {
    Time shadow = Time::infinity();
    long extra_gpus = 0;
  };
  Reservation reserve_for(const ActiveJob& head, const Cluster& cluster, const JobTable& jobs,
                          const std::vector<JobSlot>& running);

  QueuePolicy policy_;
  std::unique_ptr<PlacementPolicy> placement_;
  int backfill_depth_;
  std::deque<JobSlot> queue_;
  std::vector<GpuIndex> chosen_;
  std::vector<std::pair<Time, int>> releases_;
};

}  // namespace gpumux
