// Slot metrics for sharing models that split GPUs into slots (MIG instances): how much of the
// split capacity jobs hold, how much free capacity no waiting job can use, and how many jobs wait
// for want of a slot that fits them. Built on the generic slot descriptors of SharingModel
// (slot_count, slot_info, slot_fits) and on GpuState::layout / GpuState::slots, so that it knows
// no particular model. A model without slots (slot_count 0 everywhere) gives nothing to measure:
// run_scenario adds this observer only when has_slots() is true.
//
// States. A GPU is split while slot_count(device, its current layout) > 0. A slot of a split GPU
// is busy while at least one resident holds it (GpuState::slots), free while none does and the
// GPU is available (not draining, reconfiguring or recovering from a fault), unavailable
// otherwise. Under models that run several jobs in one slot (mig+mps), a busy slot may still
// take more: slots count here as whole units, busy or not. A job is queued from its arrival until
// it starts; a killed job that will retry is queued again from the kill (its retry delay included:
// the engine signals no requeue), a failed or rejected one leaves.
//
// Metrics, all time-weighted over [first arrival, end of run]. Shares are weighted by compute
// slices: (integral of the slices in a state) / (integral of all slices of split GPUs), so GPUs
// that switch between split and whole over the run count only while split.
// - slice_utilization: busy slices. memory_allocation_share: the same with each slot weighted by
//   its memory instead of its slices.
// - free_slice_share, unavailable_slice_share: the other two states; the three sum to 1.
// - fragmentation: free slices whose slot fits no queued job (slot_fits is false for every one),
//   counted only while at least one job is queued: with an empty queue free slices are idle, not
//   fragmented. Hence 0 <= fragmentation <= free_slice_share <= 1 - slice_utilization.
// - per slot name ("profiles"): mean_instances and mean_busy (time-weighted mean number of slots
//   of that name on split GPUs, and of busy ones), occupancy = busy / instances (ratio of the
//   integrals).
// - mean_split_gpus; slice_hours (compute-slice-hours of split GPUs: the shares' denominator).
// - rejected_by_reason: jobs rejected at arrival because they can never run on this cluster (no
//   GPU admits them when empty in any layout, gang too large), counted by the engine's reason.
// - fit_blocked: a queued job is fit-blocked over an interval when some slot is free but no free
//   slot fits it and no empty available unsplit GPU admits it either. A gang waiting while one
//   such GPU is empty is not counted (it waits for more GPUs, not for a fit); one waiting while
//   none is and slots that do not fit it are free is. `jobs`: distinct jobs fit-blocked for a
//   positive time (once, however often they wait); `wait_job_hours`: the queued time of all jobs
//   while fit-blocked, summed.
//
// Cost: exact, not sampled. Counts are kept per (device, layout, slot); on_gpu_changed updates
// them in O(slots of that GPU). Queued jobs are grouped by fit signature (which slots and which
// unsplit GPU types would take them), computed once per distinct demand (mig_profile, memory,
// sm_share, gang size, memory_limit: the fields a slot's fit may depend on) and cached, so the
// fit check is per distinct signature, never per job and GPU. Slots of the same device, name,
// slices and memory are taken to fit the same jobs (slot_fits is asked of one of them). Shares and
// fit-blocked states are recomputed from the per-slot counts, O(layouts x slots + signatures), at
// most once per simulated instant in which something changed.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/state/cluster.h"
#include "sim/state/observer.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

// True when some device of `cluster` has a layout the model splits into slots.
bool has_slots(const Cluster& cluster, const SharingModel& model);

class SlotMetrics : public EngineObserver {
 public:
  // Both must outlive the observer. Reads each GPU's state from `cluster` at the first signal
  // (after the engine has set the initial layouts) and when a drain starts (the engine signals no
  // GPU change then); otherwise from on_gpu_changed.
  SlotMetrics(const Cluster& cluster, const SharingModel& model);

  void on_job_arrived(Time now, const ActiveJob& job) override;
  void on_job_rejected(Time now, const ActiveJob& job, std::string_view reason) override;
  void on_job_started(Time now, const ActiveJob& job) override;
  void on_job_finished(Time now, const ActiveJob& job) override;
  void on_job_killed(Time now, const ActiveJob& job, double lost_work_us) override;
  void on_job_migrated(Time now, const ActiveJob& job, double lost_work_us,
                       Time checkpoint) override;
  void on_job_failed(Time now, const ActiveJob& job) override;
  void on_gpu_drain_started(Time now, GpuIndex gpu) override;
  void on_gpu_reconfigured(Time now, GpuIndex gpu, Time drain, Time delay) override;
  void on_gpu_resplit(Time now, GpuIndex gpu, const Resplit& plan, bool layout_changed,
                      std::size_t moved) override;
  void on_gpu_changed(Time now, GpuIndex index, const GpuState& gpu) override;
  void on_run_end(Time now, std::span<const ActiveJob* const> unfinished) override;

  // The "slots" object of summary.json's metrics (valid after on_run_end). A share or mean over
  // no slices or no time, and the occupancy of a profile never instantiated, are null.
  nlohmann::json metrics() const;

  // Samples the slot state over time into `out` (slot_timeseries.csv; docs/outputs.md "Outputs"): writes
  // the header now, then one row every `interval` from the first arrival to the end of the run,
  // on the same instants as timeseries.csv. A row at t holds the state after every event at t.
  // Columns: time_s, split_gpus, slices, busy_slices, free_slices, unavailable_slices,
  // fragmented_slices (slice counts summed over split GPUs), slice_utilization (busy / slices,
  // empty while no GPU is split), fit_blocked_jobs (queued jobs fit-blocked at t).
  // Precondition: called before the run; interval > 0; `out` outlives the observer. Throws
  // TimeseriesTooLong (metrics_collector.h) before writing past kMaxTimeseriesRows rows.
  void write_timeseries(std::ostream* out, Time interval);

 private:
  // One (device, layout) pair; its slots are slots_[first_slot, first_slot + slots).
  struct LayoutClass {
    int device = 0;
    int layout = 0;
    int first_slot = 0;
    int slots = 0;
    int whole_free = 0;  // unsplit classes: GPUs in this class that are available and empty
  };
  struct ClassSlot {
    int name = 0;  // index into names_
    int kind = 0;  // index into kinds_
    double slices = 0.0;
    double memory_mib = 0.0;
    int busy = 0, free = 0, unavailable = 0;  // GPUs of the class with this slot in each state
    int fitting_signatures = 0;               // queued signatures that fit this slot
  };
  // Queued jobs that fit the same slots and unsplit classes.
  struct Signature {
    std::vector<std::uint8_t> fits;  // per class slot, then per class (unsplit classes only)
    std::int64_t queued = 0;
    bool blocked = false;
    Time blocked_since;
    std::int64_t blocked_us = 0;  // fit-blocked time before blocked_since
  };
  struct JobRecord {
    int signature = 0;
    bool queued = false;
    bool counted = false;           // already counted as fit-blocked
    std::int64_t joined_at_us = 0;  // the signature's fit-blocked time when the job queued
  };
  struct DemandKey {
    std::string mig_profile;
    std::int64_t memory_mib = 0;
    double sm_share = 0.0;
    int gpus = 0;
    std::int64_t memory_limit_mib = 0;
    bool operator==(const DemandKey&) const = default;
  };
  struct DemandHash {
    std::size_t operator()(const DemandKey& k) const;
  };

  void start_clock(Time now);
  // Writes the rows due before `limit` (and at `limit` when `inclusive`) from now_.
  void emit_samples(Time limit, bool inclusive);
  // Integrates the state up to `now`, refreshing derived values first when something changed.
  void advance_to(Time now);
  void refresh(Time at);
  void update_gpu(GpuIndex g, const GpuState& gpu);
  int class_of(const GpuState& gpu) const;
  int signature_of(const JobSpec& job);
  std::int64_t blocked_time(const Signature& s, Time now) const;
  void enqueue(Time now, const ActiveJob& job);
  // The job leaves the queue (started, rejected, failed); `erase` drops its record.
  void dequeue(Time now, const ActiveJob& job, bool erase);
  void leave_queue(Time now, JobRecord& record);
  void change_queued(int signature, int delta);

  const Cluster& cluster_;
  const SharingModel& model_;
  std::vector<LayoutClass> classes_;
  // Per device: index of its layout 0 in classes_; one more entry ends the last device's.
  std::vector<int> first_class_;
  std::vector<ClassSlot> slots_;
  // Slots alike (same device, name, slices and memory) answer slot_fits alike: it is asked once
  // per kind, of the kind's first slot.
  struct SlotKind {
    int device = 0, layout = 0, slot = 0;
    int index = 0;  // into slots_
  };
  std::vector<SlotKind> kinds_;
  std::vector<std::uint8_t> kind_fits_;  // scratch for signature_of
  std::vector<std::string> names_;

  // Per GPU: its class, availability and emptiness as last counted, and which slots are busy
  // (busy_[busy_offset_[g] + slot]).
  std::vector<int> gpu_class_;
  std::vector<std::uint8_t> gpu_available_, gpu_whole_free_;
  std::vector<std::size_t> busy_offset_;
  std::vector<std::uint8_t> busy_;

  std::vector<Signature> signatures_;
  std::map<std::string, int> signature_index_;  // by the fits bytes
  std::unordered_map<DemandKey, int, DemandHash> demand_cache_;
  std::unordered_map<std::uint64_t, JobRecord> jobs_;  // by arrival ordinal
  std::int64_t queued_ = 0;

  bool started_ = false;
  bool dirty_ = true;      // counts changed since the last refresh
  bool fit_dirty_ = true;  // free slots or queued signatures changed: fit-blocked states may too
  Time first_arrival_, last_time_, end_;

  // Current values (after refresh) and their integrals over time (value x microseconds).
  struct Values {
    double slices = 0, busy = 0, free = 0, unavailable = 0, fragmented = 0;
    double memory = 0, memory_busy = 0, split_gpus = 0, blocked_jobs = 0;
  };
  Values now_, integral_;

  std::ostream* series_ = nullptr;  // slot_timeseries.csv, when sampled
  Time series_interval_;
  bool sampling_ = false;  // from the first arrival
  Time next_sample_;
  std::uint64_t series_rows_ = 0;
  std::vector<double> instances_by_name_, busy_by_name_;
  std::vector<double> instances_integral_, busy_integral_;

  std::map<std::string, std::uint64_t> rejected_by_reason_;
  std::uint64_t fit_blocked_jobs_ = 0;
};

}  // namespace gpumux
