// `mig`: every GPU that supports MIG is split into a static layout of GPU instances; each job
// runs alone in one whole instance, isolated from the others (docs/sharing-models.md "Sharing
// models", DESIGN "The models", docs/gpu-facts.md "MIG").
//
// Parameters (`sharing.params`), one layout source required:
// - `layout`: the instances of every MIG-capable GPU, a list of profile names such as
//   ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"] (start offsets are found by place_profiles), or
//   an object {"A100-80GB": [...], "A30-24GB": [...]} per device type (device types not named
//   run with MIG off);
// - `mig_parted` + `config`: a mig-parted YAML file (models/mig/mig_parted.h) and the name of the
//   config in it to apply; the path is used as given (the scenario resolves it), or the file's
//   document itself as a JSON object (JSON is YAML), errors then naming the parameter;
// - `compute_aware` (default false): a job that requests no profile also needs an instance with
//   the SMs it occupies (models/mig/profile_selection.h);
// - `strategy` (default "auto"): "auto", or the Kubernetes device-plugin strategies "mixed" and
//   "single" (see MigStrategy below).
// A layout is checked against a device when the model first meets it (layout_for), throwing
// InputError at the parameter (or the mig-parted file's line) when it is invalid there.
//
// A GPU with MIG off (a device without MIG support, whatever the configuration says; a device
// type missing from a per-device `layout`; `mig-enabled: false` or no entry in the mig-parted
// config) is a whole GPU: one job, gang or not, that requests no MIG profile (and, under `auto`,
// whose peak memory fits the device),
// at rate 1 (as `exclusive`).
//
// A mig-parted config may give GPU indices different layouts (e.g. GPUs 0-3 split, 4-7 whole):
// each distinct layout is one of layout_count(device), and initial_layout gives every GPU the
// one of its index in the node.
//
// On a GPU in MIG mode:
// - admission: the job is not a gang (gang jobs cannot span instances: no NCCL/P2P across MIG
//   instances) and some instance no resident holds fits it (`fits`, by strategy: see
//   MigStrategy). Residents keep the instance they were given (GpuView::resident_slot): a
//   running process cannot move, so a job may wait although a reshuffle would make room.
// - slot (choose_slot): the smallest free instance that fits (memory, compute slices, memory
//   slices, start offset).
// - rates: each job runs at mig_instance_rate in its instance under `speed_model` (fitted by
//   default, or roofline; `width_base`, `width_per_bandwidth`, `calibration`: a file from
//   `gpumux calibrate fit --mode mig`; models/mig/instance_rate.h); jobs
//   in different instances never interfere. GpuLoad.useful_busy = sum over jobs of rate x sm_util
//   x instance SMs / device SMs (the busy share of the whole GPU's SMs); overhead = 0.
// - memory: a resident whose memory in use passes its instance's memory dies alone
//   (memory_fault). Under `auto` admission checks the peak, so only the Kubernetes strategies,
//   blind to memory, let that happen. A fatal fault (fatal_fault, the default) kills the
//   faulting job alone: its instance is its own.
// Repartitioning (`layouts`: candidate layouts, `[]` = MIG off; every MIG GPU starts in the
// first; `repartition`: {reconfiguration_s 10, reset_s 60, hysteresis_s 300, lookahead 32}):
// when the queue's head fits nowhere, plan_reconfiguration picks the GPU with the fewest
// residents among those that take jobs, were not changed within the hysteresis window, and
// whose current layout could not take the head even when empty (otherwise waiting for the right
// instance beats draining the GPU); its new layout is, among the candidates that take the head,
// the one that would start the most of the head and the next `lookahead` queued jobs at once
// (each in the smallest free instance it fits), the earlier candidate on ties. The delay is
// reset_s when MIG mode toggles on Ampere, else reconfiguration_s.
// Migration (`repartition.migration`: {checkpoint true, checkpoint_s 10, restart_s 20}): instead
// of waiting for the chosen GPU to drain, its residents are checkpointed and restarted wherever
// the scheduler places them (the new layout included; sim/core/sharing_model.h MigrationPlan; with
// checkpoint false they lose the work since their last periodic checkpoint instead). The GPU and
// layout are then chosen so that the new layout holds the residents and the head together (as
// MISO re-partitions a GPU for its job mix): among GPUs that take jobs and were not changed
// within the hysteresis window, the one with the fewest residents that some other candidate
// holds with the head; among those candidates, the one that starts the most of residents, head
// and the next `lookahead` queued jobs; the earlier candidate on ties. A GPU whose current
// layout would take the head once an instance frees may be chosen: moving is cheap.
// Profile-guided sizing (`sizing`: {max_slowdown 1.25}; not with compute_aware): a job that
// requests no profile fits an instance only within max_slowdown of its best rate in any instance
// the layouts of the device offer (models/mig/profile_sizing.h), so it gets the smallest such
// instance.
// Re-split in place (`regrow`: {checkpoint_s 10, restart_s 20, objective time_left}; any layout
// source; not with the hybrids): when a job finishes, its residents left may move into the layout
// and instances that finish them soonest (plan_resplit below), or, with objective mean_slowdown,
// into those of least mean slowdown (MISO's rule); with migration, a GPU chosen for a head that
// fits nowhere is re-split in place around it instead of having its residents moved off.
//
// Views without slots (built by hand, or an empty GPU) are answered by matching instead: jobs in
// order of needed memory, descending, each to the smallest free instance that fits, completed by
// augmenting paths (bipartite matching), so admission says yes exactly when an assignment exists.
//
// Files: mig_params.{h,cc} read the parameters above, mig_model.cc is the model (layouts,
// admission, slots, rates, memory faults), mig_repartition.cc the repartition planner,
// mig_regrow.cc the re-split in place.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "models/mig/layout.h"
#include "models/mig/mig_params.h"
#include "models/mig/mig_parted.h"
#include "sim/base/json_fields.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

class MigModel : public SharingModel, public RoomBound, public SlotLayout, public LayoutChanges {
 public:
  // Reads `params` (see above); throws InputError naming the key, or the mig-parted file's line.
  explicit MigModel(JsonObject& params);

  std::string_view name() const override { return "mig"; }
  bool admits(const GpuView& gpu, const JobSpec& job) const override;
  // MIG on: kMigFit. A whole GPU: kGpus with a resident, else kMigFit for a job naming a
  // profile, kMemory for one too large.
  QueueReason refusal(const GpuView& gpu, const JobSpec& job) const override;
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override;
  std::vector<ModelParameter> parameters() const override { return params_.declared; }
  const RoomBound* room_bound() const override { return this; }
  const SlotLayout* slot_layout() const override { return this; }
  // Only a model that repartitions or re-splits changes layouts.
  const LayoutChanges* layout_changes() const override {
    return reconfigures() || resplits() ? this : nullptr;
  }
  // The job-speed model (`speed_model`, models/mig/instance_rate.h), for the hybrids.
  const MigSpeedParams& speed_params() const { return params_.speed; }
  void check_device(const DeviceProfile& device) const override;
  // MIG configured on a cluster without MIG GPUs, a mig-parted entry for a GPU index no node
  // has, or a mig-parted config whose device-filters match no device of the cluster, is an
  // InputError (each would silently run whole GPUs).
  void check_cluster(std::span<const DeviceProfile> devices,
                     std::span<const int> gpus_per_node) const override;
  int layout_count(const DeviceProfile& device) const override;
  // Dynamic repartitioning (`layouts`): see "Repartitioning" above.
  bool reconfigures() const override { return params_.source == MigLayoutSource::kCandidates; }
  bool plan_reconfiguration(Time now, const Cluster& cluster, GpuViewBuilder& views,
                            const JobSpec& blocked, std::span<const JobSpec* const> behind,
                            Reconfiguration& out) const override;
  // Re-split in place (`regrow`, mig_regrow.cc): when a job has finished on a MIG GPU and its
  // instance is still free after the scheduling pass, the residents left move when some layout
  // (any candidate with `layouts`, else the GPU's own) and
  // assignment finish them sooner in total, pauses included, by more than kRegrowMinGain: a
  // resident's time left is its work left / its rate in the instance (mig_job_rate: measured
  // where the catalogue has it), plus, when it moves, checkpoint_s + restart_s, and
  // reconfiguration_s more when the layout changes (every resident then moves: its instances
  // are made anew). The layout with the smallest total wins, the earlier candidate on ties.
  // With objective mean_slowdown (MISO's miso_idle_optimize) a resident costs its slowdown in the
  // instance (1 / rate), pauses not counted: with `layouts` the GPU is always re-split into a
  // layout with exactly one instance per resident, the one of least summed slowdown (no re-split
  // where no candidate has that many instances); with a fixed layout the residents move only
  // when that lowers their summed slowdown by more than kRegrowMinSlowdownGain.
  bool resplits() const override { return params_.regrow; }
  // With an incoming job (the queue's head, when plan_reconfiguration chose this GPU for it with
  // migration): among the layouts with exactly one instance per job (as MISO re-splits), the one
  // whose best assignment finishes residents and head soonest in total (the head's time its
  // runtime / its rate, no pause), or, with mean_slowdown, of least summed slowdown; its
  // instance is the one left free.
  bool plan_resplit(const GpuView& gpu, std::span<const double> work_left_us,
                    const JobSpec* incoming, Resplit& out) const override;
  // The least a re-split must save, summed over the residents (us): no move for noise.
  static constexpr double kRegrowMinGain = 1e6;
  // The same for summed slowdowns (mean_slowdown with a fixed layout): no move for a tie.
  static constexpr double kRegrowMinSlowdownGain = 1e-9;
  // The smallest free instance (no resident holds it) that fits the job; 0 on a whole GPU.
  int choose_slot(const GpuView& gpu, const JobSpec& job) const override;
  // mig-parted configs that give GPU indices different layouts: the index's layout.
  int initial_layout(const DeviceProfile& device, int index_in_node) const override;
  // A resident whose memory in use passes its own instance's memory dies alone (no recovery
  // delay: the other instances never notice). Whole GPUs: a resident past the device's memory.
  bool memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                    Time& recovery) const override;
  // Placement pruning: a GPU's room is the memory (MiB) of its largest free instance (an empty
  // whole GPU: the device's memory; nothing free: -1); a job needs its peak memory under `auto`
  // (admission checks it against the instance) and 0 under the Kubernetes strategies (any free
  // instance will do).
  double gpu_room(const GpuView& gpu) const override;
  double job_need(const JobSpec& job) const override;
  // With slots known, a job fits a GPU when a free instance of its layout fits it (or, MIG off,
  // when the whole GPU is empty): the residents matter only through the instances they hold.
  bool admission_by_slots() const override { return true; }
  // The room is the whole answer for a single-GPU job that names no profile under `auto`,
  // without compute-aware sizing or a slowdown bound: a free instance fits it iff its memory
  // does (an empty whole GPU: iff the device's memory does).
  bool room_decides_admission_for(const JobSpec& job) const override {
    return params_.strategy == MigStrategy::kAuto && !params_.compute_aware &&
           params_.max_slowdown <= 0.0 && job.mig_profile.empty() && job.gpus == 1;
  }
  // Slots are the instances of the layout (none on a whole GPU).
  int slot_count(const DeviceProfile& device, int layout) const override;
  SlotInfo slot_info(const DeviceProfile& device, int layout, int slot) const override;
  bool slot_fits(const DeviceProfile& device, int layout, int slot,
                 const JobSpec& job) const override;

  // Layout `layout` of `device` (GpuView::layout), validated; mig_enabled false for a whole GPU.
  const MigDeviceLayout& layout_at(const DeviceProfile& device, int layout) const;
  // The profile of instance `instance` of that layout. Precondition: 0 <= instance <
  // slot_count(device, layout).
  const MigProfile& instance_profile(const DeviceProfile& device, int layout, int instance) const;
  // Whether a job may run in an instance of `profile` under the model's rules (requested
  // profile, memory, compute-aware SMs, and the Kubernetes strategy).
  bool fits(const DeviceProfile& device, const MigProfile& profile, const JobSpec& job) const;
  // Whether a job may run on a whole (MIG-off) GPU of `device` under the strategy.
  bool fits_whole_gpu(const DeviceProfile& device, const JobSpec& job) const;

  // The layout this model gives every GPU of type `device`, validated against its MIG table.
  // Resolved once per device name and cached (device names identify profiles within a run).
  // Throws InputError when the configured layout is invalid on the device; call it for every
  // device of a cluster before a run to report bad layouts up front.
  const MigDeviceLayout& layout_for(const DeviceProfile& device) const;

  // For the jobs `jobs` on a GPU of type `device` in MIG mode, writes into `instance_of` (same
  // size as `jobs`) the index into layout_for(device).instances of each job's instance, as the
  // model assigns them. Returns false when no assignment gives every job an instance (then the
  // contents of `instance_of` are unspecified). Does not allocate once warmed up.
  bool assign(const DeviceProfile& device, std::span<const JobSpec* const> jobs,
              std::span<int> instance_of) const;

 private:
  struct Resolved {
    std::string device;
    int index = 0;
    MigDeviceLayout layout;
    std::vector<int> profile;  // per instance: index into the device's mig_profiles
    std::vector<int> by_size;  // instance indices, smallest first
  };

  // The layout `index` (GpuView::layout; 0 unless repartitioning) of `device`.
  const Resolved& resolve(const DeviceProfile& device, int index = 0) const;
  // Throws InputError when every entry of the mig-parted config has a device-filter and none
  // matches a device of the cluster.
  void check_device_filters(std::span<const DeviceProfile> devices) const;
  // Per-GPU-index layouts of a mig-parted config for `device`, cached by device name.
  const MigPartedIndexLayouts& parted_for(const DeviceProfile& device) const;
  const MigProfile& instance_profile_of(const DeviceProfile& device, const Resolved& r,
                                        int instance) const;
  // The repartition planner's scoring (mig_repartition.cc).
  // Gives a single-GPU `job` the smallest instance of `r` (by_size order) that taken_ leaves
  // free and that fits it, and marks it taken; false when none does or the job is a gang.
  bool take_free_instance(const DeviceProfile& device, const Resolved& r, const JobSpec& job) const;
  // How many of `head` and the first params_.lookahead jobs of `behind` an empty GPU in `layout`
  // would start at once (each in the smallest free instance it fits, in queue order).
  int jobs_served(const DeviceProfile& device, int layout, const JobSpec& head,
                  std::span<const JobSpec* const> behind) const;
  // With migration: how many of `residents`, `head` and the first params_.lookahead jobs of
  // `behind` an empty GPU in `layout` would start at once, or -1 when it cannot hold the residents
  // and the head together (each resident and the head in an instance of its own, found by matching;
  // the queued jobs then each in the smallest instance left that fits, in queue order).
  int jobs_served_with(const DeviceProfile& device, int layout,
                       std::span<const JobSpec* const> residents, const JobSpec& head,
                       std::span<const JobSpec* const> behind) const;
  // The MIG profiles the model's layouts of `device` use (its sizing bound's "best"), cached by
  // device name.
  std::span<const MigProfile* const> offered_profiles(const DeviceProfile& device) const;
  // best_instance_rate over offered_profiles, remembered for the last device and demand asked:
  // placement asks `fits` for one job across many instances and GPUs in a row.
  double sizing_best(const DeviceProfile& device, const JobSpec& job) const;
  // Fills instance_of_ with each resident's instance: its slot when the view carries slots,
  // else the matching (assign_resolved). False when the matching leaves a resident out.
  bool resident_instances(const GpuView& gpu, const Resolved& r) const;
  // The smallest instance no resident holds (GpuView::resident_slot) that fits the job, or -1.
  int free_fitting_instance(const GpuView& gpu, const Resolved& r, const JobSpec& job) const;
  bool augment(const DeviceProfile& device, const Resolved& r, std::span<const JobSpec* const> jobs,
               int j, std::span<int> instance_of) const;
  bool assign_resolved(const DeviceProfile& device, const Resolved& r,
                       std::span<const JobSpec* const> jobs, std::span<int> instance_of) const;

  // The re-split search (mig_regrow.cc): the cheapest assignment of residents k..n-1 to the
  // instances left, given `spent` so far; the best is kept in regrow_best_.
  void search_regrow(std::size_t k, double spent) const;

  MigParams params_;  // what `sharing.params` set (mig_params.h), fixed after construction
  mutable std::deque<std::pair<std::string, MigPartedIndexLayouts>> parted_;  // by device name
  mutable std::vector<std::uint8_t> empty_fit_;  // scratch: per layout, an empty GPU admits
  mutable std::vector<int> served_;              // scratch: per layout, jobs_served
  mutable std::vector<std::uint8_t> taken_;      // scratch: instances taken in jobs_served

  // Cache and scratch: resolved layouts by device name; matching state sized up front so that
  // compute_rates does not allocate.
  mutable std::deque<Resolved> resolved_;  // a deque: references stay valid as it grows
  mutable std::deque<std::pair<std::string, std::vector<const MigProfile*>>> offered_;
  struct SizingMemo {    // keyed by what the best rate depends on, never by pointers
    std::string device;  // name, as offered_profiles is keyed
    double sm_share = -1.0, sm_util = -1.0, mem_bw_util = -1.0;
    MemoryMiB memory;
    double best = 0.0;
  };
  mutable SizingMemo sizing_memo_;
  mutable std::vector<const JobSpec*> jobs_;
  mutable std::vector<int> order_;
  mutable std::vector<int> instance_of_;
  mutable std::vector<int> owner_;
  mutable std::vector<std::uint8_t> visited_;
  // Scratch of the re-split search: per resident and instance the time left there (us;
  // infinity where it does not fit), the cheapest time left of residents k.. (a bound), the
  // instances taken, the path tried, the best total and path found.
  mutable std::vector<double> regrow_cost_;
  mutable std::vector<double> regrow_floor_;
  mutable std::vector<double> regrow_rate_;  // per resident and device profile; < 0: not yet
  mutable std::vector<std::uint8_t> regrow_used_;
  mutable std::vector<int> regrow_path_;
  mutable std::vector<int> regrow_best_;
  mutable std::vector<int> regrow_profile_;  // per instance: its profile, -1 for "not shared"
  mutable std::size_t regrow_instances_ = 0;
  mutable double regrow_best_total_ = 0.0;
};

}  // namespace gpumux
