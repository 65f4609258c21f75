// The job queue and the policy deciding which queued jobs start.
//
// - fifo: strict arrival order; when the head does not fit, nothing behind it starts.
// - fifo-backfill: EASY backfilling. When the head does not fit, it gets a reservation at the
//   "shadow time" (the earliest time enough GPUs are expected to be empty, estimated from the
//   running jobs' current rates); a job further back may start now if it fits and is expected to
//   finish before the shadow time (estimated with its exclusive runtime), or if it only uses GPUs
//   the head will not need. At most `backfill_depth` queued jobs are examined per pass, which
//   bounds a pass's cost on long queues.
// - greedy: after completions and arrivals, start the first queued job (in the queue's order)
//   that fits now, and again, until none fits; no job waits for the head, and nothing is
//   reserved for it. A large head can starve behind a stream of small jobs: that is the rule.
//
// Queue order (QueueOrder, greedy only): `arrival` sorts by submit time, then job id
// (compare_job_ids); `shortest` by runtime alone (JobSpec::runtime), then job id (the PAI 2020
// simulator's SJF key, duration then id: submit time plays no part).
// fifo and fifo-backfill keep arrival order (a killed job returns at their head).
//
// On a pooled cluster (sim/state/pool.h) a job fits when its pool amount (GPU fraction and CPU cores)
// fits what is free; no placement policy is asked. The greedy queue is then a PoolQueue (one
// group per distinct amount, sim/scheduling/pool_queue.h); fifo-backfill reserves for the head the earliest
// time its amount is expected to be free and counts the spare amount then, GPUs and CPUs alike
// (from the running jobs ordered by finish time, sim/scheduling/pool_releases.h).
//
// The greedy queue is kept in one ordered set per gang size, so a pass never visits a job that
// cannot fit by GPU count: under models that need empty GPUs (exclusive) only sizes up to the
// cluster's empty-GPU count are looked at, and the pass ends when none is empty (unless
// CPU-only jobs wait). Under sharing models every size is looked at (a GPU with a resident may
// still admit a job).
//
// CPU-only jobs (gpus 0) on a cluster of nodes queue like the others, in the same order; one
// starts when the placement policy finds a node with its cores free
// (PlacementPolicy::place_cpu_only). When the head asks for node CPU cores, fifo-backfill's
// reservation counts cores as well as GPUs (sim/state/core_reservation.h).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/state/cluster.h"
#include "sim/state/core_reservation.h"
#include "sim/core/job_order.h"
#include "sim/state/job_table.h"
#include "sim/placement/placement.h"
#include "sim/scheduling/pool_queue.h"
#include "sim/scheduling/pool_releases.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

enum class QueuePolicy { kFifo, kFifoBackfill, kGreedy };
enum class QueueOrder { kArrival, kShortest };

// Throws std::invalid_argument for an unknown name; valid: queue_policy_names().
QueuePolicy parse_queue_policy(std::string_view name);
std::string_view queue_policy_name(QueuePolicy policy);
std::vector<std::string> queue_policy_names();
// Throws std::invalid_argument for an unknown name; valid: queue_order_names().
QueueOrder parse_queue_order(std::string_view name);
std::string_view queue_order_name(QueueOrder order);
std::vector<std::string> queue_order_names();

// Receives the scheduler's decisions; the engine implements it.
class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual void start(JobSlot job, std::span<const GpuIndex> gpus) = 0;
  // A CPU-only job (JobSpec::gpus 0) on a cluster of nodes: its cores on `node`, no GPU.
  virtual void start_on_node(JobSlot job, NodeIndex node) = 0;
};

class Scheduler {
 public:
  // Throws std::invalid_argument for kShortest with a policy other than kGreedy.
  Scheduler(QueuePolicy policy, std::unique_ptr<PlacementPolicy> placement, int backfill_depth,
            QueueOrder order = QueueOrder::kArrival);

  // Whether the cluster is pooled (Cluster::pooled): jobs then fit by pool amount. Set before
  // the first job is queued (the engine does).
  void set_pooled(bool pooled);

  // `jobs` gives the job's spec (its order key under greedy); the slot must hold it until the
  // job leaves the queue.
  void enqueue(JobSlot job, const JobTable& jobs);
  // A killed job returns at the head under fifo and fifo-backfill (it had already been chosen
  // once); under greedy it takes its place by the queue's order again.
  void requeue(JobSlot job, const JobTable& jobs);
  std::size_t queued() const { return queued_; }
  // The first min(n, queued()) jobs in queue order (out[0] = head), replacing `out`'s contents.
  void front(std::size_t n, std::vector<JobSlot>& out) const;
  const PlacementPolicy& placement() const { return *placement_; }
  QueuePolicy policy() const { return policy_; }
  QueueOrder order() const { return order_; }

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
  // A greedy queue entry; ordered by (primary, submit, id), the slot only breaks exact ties.
  struct Entry {
    std::int64_t primary = 0;  // runtime in us under kShortest, else 0
    std::int64_t submit = 0;   // us; 0 under kShortest
    std::string id;
    JobIdNumber id_number;  // id's key (sim/core/job_order.h), computed once
    JobSlot slot = 0;
    bool operator<(const Entry& o) const;
  };
  Entry entry_for(JobSlot job, const JobTable& jobs) const;
  void schedule_greedy(const Cluster& cluster, const SharingModel& model, JobTable& jobs,
                       Launcher& launcher);

  Reservation reserve_for(const ActiveJob& head, const Cluster& cluster, const JobTable& jobs,
                          const std::vector<JobSlot>& running);
  // Where `spec` can start now: its GPUs in chosen_, or a CPU-only job's node in chosen_node_.
  bool place_now(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                 const JobSpec& spec);
  // Starts the job just placed (place_now) after taking it out of the count of queued jobs.
  void launch(JobSlot job, const JobSpec& spec, Launcher& launcher);
  void count_in(const JobSpec& spec);
  // fifo and fifo-backfill on a pooled cluster.
  void schedule_pool_fifo(Time now, const Cluster& cluster, JobTable& jobs, Launcher& launcher);
  void start_in_pool(JobSlot job, const JobTable& jobs, Launcher& launcher);

  QueuePolicy policy_;
  std::unique_ptr<PlacementPolicy> placement_;
  int backfill_depth_;
  QueueOrder order_;
  std::size_t queued_ = 0;
  std::deque<JobSlot> queue_;               // fifo, fifo-backfill
  std::map<int, std::set<Entry>> by_gpus_;  // greedy: gang size -> ordered entries
  struct Cursor {
    std::set<Entry>* bucket;
    std::set<Entry>::iterator at;
    int gpus;
  };
  std::vector<Cursor> cursors_;
  std::vector<GpuIndex> chosen_;
  NodeIndex chosen_node_ = 0;         // a CPU-only job's node, when place_now chose one
  std::size_t cpu_only_queued_ = 0;   // queued CPU-only jobs of a cluster of nodes
  CoreReservation core_reservation_;  // fifo-backfill, head asking for node CPUs
  std::vector<std::pair<Time, int>> releases_;
  bool pooled_ = false;
  PoolQueue pool_queue_;         // greedy on a pooled cluster
  PoolReleases pool_releases_;   // fifo-backfill on a pooled cluster: its starts' releases
};

}  // namespace gpumux
