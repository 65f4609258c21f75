// The discrete-event loop: streams arrivals from a JobSource, lets the scheduler start jobs,
// advances progress at the rates the sharing model gives, and finishes jobs.
//
// Contract with models (see sim/core/sharing_model.h): before any GPU's residents change, every job
// on it is brought up to date at its old rate; afterwards the model gives new rates and each
// affected job's completion event is rescheduled. A gang job progresses at the minimum of its
// rates over its GPUs (synchronous training waits for its slowest member). A job's pending event
// is keyed by its slot (EventQueue::schedule): rescheduling replaces it in place, and a job that
// leaves without one (killed for good, migrated) has it cancelled. A per-job version counter
// still marks which event is current, as a check: a superseded event left pending is a bug.
//
// Each running job has one pending event: whichever comes first of its completion, its next
// memory-profile step and its next fatal fault (drawn once per start, EngineOptions). Out of
// memory and fatal faults kill whom the model says (SharingModel::memory_fault, fatal_fault);
// the engine flags the residents that just asked for memory (placed, or grown) so that the
// model can fail the asker's allocation.
//
// On a pooled cluster (Cluster::pooled, sim/state/pool.h) jobs hold pool amounts instead of GPUs and
// run at rate 1: their completion is scheduled when they start; the sharing model is not asked.
//
// A service (JobSpec::service) lives a wall-clock lifetime: its `remaining_us` runs down at 1
// whatever its rate, and observers hear of each rate change (on_service_rate_changed).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/state/cluster.h"
#include "sim/engine/event_queue.h"
#include "sim/core/job_source.h"
#include "sim/state/job_table.h"
#include "sim/state/observer.h"
#include "sim/base/rng.h"
#include "sim/scheduling/scheduler.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

// A fatal fault at a chosen instant: the process of job `job_id` faults `after_start` of wall
// time after the job's first start (a replayed experiment's deliberate fault,
// calibrate/replay/). Who dies is the model's, as for a drawn fault; a retried job does not
// fault again.
struct InjectedFault {
  std::string job_id;
  Time after_start;
};

struct EngineOptions {
  Time horizon = Time::infinity();            // stop processing events after this time
  int retry_limit = 3;                        // a job killed more often than this fails
  Time retry_delay = Time::from_seconds(10);  // a killed job waits this long before requeueing
  int max_reconfigurations_in_flight = 1;     // GPUs draining or reconfiguring at once
  // Fatal GPU faults: each running job's process on each of its GPUs faults as a Poisson
  // process of this rate per hour of wall time (0: never). Who dies is the model's
  // (SharingModel::fatal_fault). The fault times come from their own generator seeded with
  // `fault_seed`, so that turning faults on changes no other draw.
  double fatal_faults_per_gpu_hour = 0.0;
  std::uint64_t fault_seed = 0;
  std::vector<InjectedFault> injected_faults = {};  // on top of the drawn ones
  // Checks the invariants only the engine can see (sim/invariants/engine_invariants.h) at every
  // completion and GPU refresh; throws InvariantViolation. Off: one untaken branch per event.
  bool check_invariants = false;
};

struct EngineStats {
  std::uint64_t arrived = 0;
  std::uint64_t started = 0;
  std::uint64_t finished = 0;
  std::uint64_t rejected = 0;
  std::uint64_t killed = 0;
  std::uint64_t failed = 0;
  std::uint64_t memory_faults = 0;       // out-of-memory events that killed someone
  std::uint64_t memory_fault_kills = 0;  // jobs killed by them
  std::uint64_t fatal_faults = 0;        // fatal GPU faults
  std::uint64_t fatal_fault_kills = 0;   // jobs killed by them (the faulting one included)
  std::uint64_t reconfigurations = 0;
  std::uint64_t migrations = 0;  // jobs moved off GPUs being reconfigured
  std::uint64_t events = 0;
  std::uint64_t stale_events = 0;
  Time end_time;
  bool hit_horizon = false;
};

class Engine : private Launcher {
 public:
  // The engine borrows everything; all must outlive run().
  Engine(Cluster& cluster, const SharingModel& model, Scheduler& scheduler, JobSource& source,
         EngineOptions options = {});

  void add_observer(EngineObserver* observer) {
    observers_.push_back(observer);
    if (observer->wants_queue_reasons()) queue_listeners_.push_back(observer);
  }

  // Runs until every job has finished or been rejected, or until the horizon.
  // Throws InputError from the job source.
  EngineStats run();
  // The injected faults (EngineOptions::injected_faults) whose job never started, in the
  // order given: such a fault never fired. Complete once run() has returned.
  std::vector<std::string> injected_faults_not_fired() const;
  // The jobs (running, queued, waiting), by slot: GpuState::residents index them. For observers
  // that need more of a resident than its slot; valid for the engine's life.
  const JobTable& jobs() const { return jobs_; }

 private:
  void start(JobSlot job, std::span<const GpuIndex> gpus) override;
  // Starts a CPU-only job on a cluster of nodes: it takes its cores on `node`, runs at full
  // speed (no GPU, no rate model) and its completion is scheduled.
  void start_on_node(JobSlot job, NodeIndex node) override;
  // Starts a job without GPUs (pooled, CPU-only) that runs at rate 1 until it ends: marks it
  // running and schedules its completion. Its start, remaining work and what it holds are set.
  void start_at_full_speed(ActiveJob& job, JobSlot slot);
  // Starts a job on a pooled cluster: it takes its pool amount and its completion is scheduled.
  void start_in_pool(ActiveJob& job, JobSlot slot);
  void on_arrival(Time now);
  void on_completion(Time now, JobSlot slot);
  bool pull_next_arrival();
  // Why `job` can never run on this cluster, or nullptr when it can.
  const char* unplaceable_reason(const JobSpec& job);
  const char* cpu_only_unplaceable_reason(const JobSpec& job) const;  // cluster of nodes
  void advance(ActiveJob& job, Time now);
  // The exclusive-runtime microseconds a running job has done since its last update, as
  // advance() counts them: none while it writes a migration checkpoint or restores from one.
  static double progress_since_update(const ActiveJob& job, Time now);
  // Schedules until the instant is quiet: kills (out of memory, faults) and moves free or change
  // GPUs, so the scheduler runs again until no GPU was touched.
  void schedule_until_quiet(Time now);
  // Brings the GPU's jobs up to date and marks it for a rate refresh.
  void touch(GpuIndex gpu, Time now);
  // Handles out of memory on `touched_` GPUs, recomputes their rates and reschedules the
  // completion of every job on them. Returns true when jobs were killed.
  bool refresh_touched(Time now);
  void remove_running(JobSlot slot);
  // Handles out of memory on a touched GPU; returns true when jobs were killed.
  bool check_memory(Time now, GpuIndex g, GpuViewBuilder& views);
  // The running job's process on one of its GPUs faults: the model says who dies on that GPU.
  void on_fatal_fault(Time now, JobSlot slot);
  enum class KillCause : std::uint8_t { kMemory, kFatalFault };
  // Kills the residents of GPU `g` marked in killed_mask_ (telling observers why) and, with a
  // nonzero `recovery`, takes the GPU out of service for it. Returns the kill count.
  std::size_t kill_marked(Time now, GpuIndex g, Time recovery, KillCause cause);
  // Draws when the job, just started on its GPUs, next faults (fatal faults on).
  Time draw_fault_time(const ActiveJob& job, Time now);
  // Brings the job's fault forward to an injected fault of its own, at its first start.
  void apply_injected_faults(ActiveJob& job);
  // The running job gives back its CPU cores and leaves its GPUs (rooms updated, a draining GPU
  // that empties starts its reconfiguration) and the running set: what finishing, a kill and a
  // migration share. job.gpus is left as it was. A CPU-only job gives back its node's cores.
  void leave_gpus(Time now, JobSlot slot);
  void kill(Time now, JobSlot slot);
  // The job's memory profile stepped: update its GPUs' memory in use (a rise may fault).
  void on_memory_change(Time now, JobSlot slot);
  // Tells the observers that want it how many jobs are queued and why the head did not start,
  // when either changed since they were last told (EngineObserver::on_queue_changed).
  void explain_queue(Time now);
  // Asks the model whether the blocked head should get a GPU re-laid out, and starts a drain.
  void maybe_reconfigure(Time now);
  // A draining GPU that has emptied starts paying its reconfiguration delay.
  void maybe_start_reconfiguration(Time now, GpuIndex g);
  // Checkpoint-restart migration (sim/engine/engine_migration.cc): moves the residents of GPU `g`,
  // just set draining, off it as `plan` says.
  void migrate_residents(Time now, GpuIndex g, const MigrationPlan& plan);
  // A resident's migration checkpoint is written: it leaves its GPUs with its work kept.
  void on_checkpoint_written(Time now, JobSlot slot);
  // Takes a running job off its GPUs and back into the queue after a migration that lost
  // `lost_us` of its work (and spent job.checkpoint_time writing a checkpoint).
  void evict(Time now, JobSlot slot, double lost_us);
  // Re-splitting in place (sim/engine/engine_resplit.cc): after the instant's scheduling, with
  // nothing queued, asks the model whether each GPU a job finished on should move its residents
  // into other slots of it (LayoutChanges::plan_resplit), and applies what it proposes.
  void maybe_resplit(Time now);
  // With migration planned for the queue's head on GPU `g`: asks the model for a re-split of
  // `g` in place that holds its residents and `head`, applies it and schedules. False (nothing
  // done) when the model has none or a resident cannot move.
  bool resplit_for(Time now, GpuIndex g, const JobSpec& head);
  // Whether every resident of GPU `g` may be moved in place (running, single-GPU, not a service,
  // not writing a checkpoint; the GPU taking jobs); fills work_left_ with their work left.
  bool movable_work_left(Time now, GpuIndex g);
  void resplit_in_place(Time now, GpuIndex g, const Resplit& plan);
  // GPU `g`'s new instances are made (Resplit::unavailable has passed): it takes jobs again.
  void on_resplit_done(Time now, GpuIndex g);
  // Refreshes the GPU's room for placement pruning (RoomBound::gpu_room), when the model
  // bounds rooms. Called whenever what the GPU can take may have grown or shrunk.
  void update_room(GpuIndex g);
  // Whether the event was superseded: a completion, memory step, fault or checkpoint event
  // whose job has moved on (another version, or no longer running). Once stale, always stale.
  bool is_stale(const Event& ev) const;
  // Pops stale events at the top of the queue (counted in EngineStats::events and
  // stale_events). Pending events are replaced or cancelled in place, so there should be none:
  // under `check_invariants` one is an InvariantViolation. They never move the clock: a run
  // ends at its last real event.
  void drop_stale_top();
  double done_us(const ActiveJob& job) const;  // exclusive-runtime microseconds done
  // How fast remaining_us runs down: the rate, or 1 for a service (its runtime is a lifetime).
  static double progress_rate(const ActiveJob& job) { return job.spec.service ? 1.0 : job.rate; }
  MemoryMiB memory_at(const ActiveJob& job, double done_us) const;

  Cluster& cluster_;
  const SharingModel& model_;
  // The model's facets (null where it has none), looked up once.
  const RoomBound* room_bound_;
  const SlotLayout* slot_layout_;
  const LayoutChanges* layout_changes_;
  const ServiceContexts* service_contexts_;
  Scheduler& scheduler_;
  JobSource& source_;
  EngineOptions options_;
  std::vector<EngineObserver*> observers_;
  std::vector<EngineObserver*> queue_listeners_;  // those that want on_queue_changed
  std::size_t told_queued_ = 0;                   // what they were last told
  QueueReason told_reason_ = QueueReason::kGpus;

  EventQueue events_;
  JobTable jobs_;
  std::vector<JobSlot> running_;
  JobSpec pending_;  // the next arrival, read ahead from the source
  bool has_pending_ = false;
  Time last_submit_;
  Time now_;  // the instant being processed; start() is called back without it
  EngineStats stats_;

  // Scratch, reused across events.
  std::vector<GpuIndex> touched_;
  std::vector<std::uint8_t> gpu_touched_;
  std::vector<JobSlot> affected_;
  SliceContext service_slices_;  // scratch: what a service meets on a time-sliced GPU
  BlockContext service_blocks_;  // scratch: what a service meets on an MPS GPU
  std::uint64_t refresh_epoch_ = 0;
  std::vector<std::uint8_t> killed_mask_;
  std::vector<JobSlot> to_kill_;
  double fault_rate_per_us_ = 0.0;  // per GPU of a job
  std::vector<std::uint8_t> injected_fired_;  // per EngineOptions::injected_faults entry
  Rng fault_rng_;
  int reconfigurations_in_flight_ = 0;
  std::vector<std::size_t> gpus_per_device_;
  // GPUs per device and initial layout ([device][layout]): without reconfiguration a GPU keeps
  // its layout, so only the GPUs whose own layout admits a job can ever hold it.
  std::vector<std::vector<std::size_t>> gpus_per_layout_;
  GpuViewBuilder start_views_;  // views for choose_slot when a job starts, and for re-splits
  std::vector<const JobSpec*> behind_head_;  // queued jobs after the head, for reconfiguration
  std::vector<JobSlot> front_;               // scratch: the queue's first jobs
  std::vector<JobSlot> moving_;              // scratch: residents of a GPU being migrated
  // GPUs a job finished on during this instant (models that re-split in place only), once each.
  std::vector<GpuIndex> vacated_;
  std::vector<std::uint8_t> gpu_vacated_;
  std::vector<double> work_left_;  // scratch: the residents' work left, for plan_resplit
  Resplit resplit_;                // scratch: the model's proposal
};

}  // namespace gpumux
