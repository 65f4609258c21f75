// `--check-invariants`: an observer of engine signals that checks what must hold in every run,
// whatever the model, policy or trace, and throws InvariantViolation (a bug: exit 1) naming the
// job, GPU and simulated time at the first break. The engine checks what only it can see
// (sim/invariants/engine_invariants.h); run_scenario turns both on together.
//
// - Time never goes backwards across signals; a job arrives at its submit time.
// - Each job arrives once and reaches exactly one terminal state: rejected (right at arrival),
//   finished, failed (after a kill), or listed as unfinished when the run ends; every step is
//   legal from the one before (started only when queued or retrying, killed or finished only
//   while running).
// - Work is conserved: a job never progresses faster than alone (work done since a start is at
//   most the time since it), the work kept at checkpoints never shrinks, and the lost work the
//   kill signals report adds up to the job's own count (done + lost = required; the engine
//   checks that a completion never comes before the work is done).
// - No over-allocation: a started gang holds exactly its GPU count of distinct GPUs; under
//   empty-GPU admission a GPU holds at most one job; a GPU in fault recovery or reconfiguration
//   holds none; a GPU's memory in use is never negative nor above its capacity once out of
//   memory has been handled.
//
// Memory: one small record per job in the system (arrived, not yet terminal), none per finished
// job.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "sim/state/cluster.h"
#include "sim/state/observer.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

class InvariantChecker : public EngineObserver {
 public:
  // Both must outlive the checker.
  InvariantChecker(const Cluster& cluster, const SharingModel& model)
      : cluster_(cluster), model_(model) {}

  void on_job_arrived(Time now, const ActiveJob& job) override;
  void on_job_rejected(Time now, const ActiveJob& job, std::string_view reason) override;
  void on_job_started(Time now, const ActiveJob& job) override;
  void on_job_finished(Time now, const ActiveJob& job) override;
  void on_memory_fault(Time now, GpuIndex gpu, std::size_t killed) override;
  void on_fatal_fault(Time now, GpuIndex gpu, std::size_t killed) override;
  void on_job_killed(Time now, const ActiveJob& job, double lost_work_us) override;
  void on_job_migrated(Time now, const ActiveJob& job, double lost_work_us,
                       Time checkpoint) override;
  void on_job_failed(Time now, const ActiveJob& job) override;
  void on_gpu_drain_started(Time now, GpuIndex gpu) override;
  void on_gpu_reconfigured(Time now, GpuIndex gpu, Time drain, Time delay) override;
  void on_gpu_resplit(Time now, GpuIndex gpu, const Resplit& plan, bool layout_changed,
                      std::size_t moved) override;
  void on_gpu_changed(Time now, GpuIndex index, const GpuState& gpu) override;
  void on_service_rate_changed(Time now, const ActiveJob& job,
                               const ServiceGpuContext& context) override;
  void on_run_end(Time now, std::span<const ActiveJob* const> unfinished) override;

  // Signals checked so far (a test can see the checker ran).
  std::uint64_t signals() const { return signals_; }

 private:
  enum class Phase : std::uint8_t { kQueued, kRunning, kRetryWait };
  struct Live {
    Phase phase = Phase::kQueued;
    std::uint32_t kills = 0;
    Time last_start;
    double kept_us = 0.0;  // work kept at checkpoints (done before the last start)
    double lost_us = 0.0;  // work lost to kills, summed from the kill signals
  };
  void at(Time now);  // time never goes backwards
  // The job's record, which must be in `expected` phase; throws naming `signal` otherwise.
  Live& live(const ActiveJob& job, Time now, const char* signal, Phase expected);
  // Checks the work of an attempt ended by a kill or migration (`what`); returns the work kept.
  double interrupted_work_kept(const ActiveJob& job, Time now, double lost_work_us, const Live& l,
                               const char* what) const;
  // `memory_settled`: out of memory has been handled (memory above capacity is then a break).
  void check_gpu(Time now, GpuIndex g, const GpuState& gpu, bool memory_settled);

  const Cluster& cluster_;
  const SharingModel& model_;
  std::unordered_map<std::uint64_t, Live> live_;  // by arrival ordinal
  std::uint64_t arrived_ = 0;
  std::uint64_t signals_ = 0;
  Time last_;
};

}  // namespace gpumux
