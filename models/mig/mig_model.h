// `mig`: every GPU that supports MIG is split into a static layout of GPU instances; each job
// runs alone in one whole instance, isolated from the others (README "Sharing models", DESIGN
// "The models", GPU-FACTS "MIG").
//
// Parameters (`sharing.params`), one layout source required:
// - `layout`: the instances of every MIG-capable GPU, a list of profile names such as
//   ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"] (start offsets are found by place_profiles), or
//   an object {"A100-80GB": [...], "A30-24GB": [...]} per device type (device types not named
//   run with MIG off);
// - `mig_parted` + `config`: a mig-parted YAML file (models/mig/mig_parted.h) and the name of the
//   config in it to apply; the path is used as given (the scenario resolves it);
// - `compute_aware` (default false): a job that requests no profile also needs an instance with
//   the SMs it occupies (models/mig/profile_selection.h).
// A layout is checked against a device when the model first meets it (layout_for), throwing
// InputError at the parameter (or the mig-parted file's line) when it is invalid there.
//
// A GPU with MIG off (a device without MIG support, whatever the configuration says; a device
// type missing from a per-device `layout`; `mig-enabled: false` or no entry in the mig-parted
// config) is a whole GPU: one job, gang or not, whose peak memory fits the device and that
// requests no MIG profile, at rate 1 (as `exclusive`).
//
// On a GPU in MIG mode:
// - admission: the job is not a gang (gang jobs cannot span instances: no NCCL/P2P across MIG
//   instances) and the residents plus the job can each be given a distinct instance it fits:
//   its requested profile when it names one (and whose memory holds it), else any instance whose
//   memory holds its peak (and SMs, when compute-aware). Memory is a hard per-instance limit: a
//   job larger than every instance is never admitted.
// - assignment (deterministic, recomputed on every call since the model is stateless): jobs in
//   order of needed memory, descending (the requested profile's memory, else the peak), ties in
//   resident order; each takes the smallest free instance that fits it (memory, compute slices,
//   memory slices, start offset). When that greedy pass leaves a job out, augmenting paths
//   (bipartite matching) complete it, so admission says yes exactly when an assignment exists.
// - rates: each job runs at mig_instance_rate in its instance (models/mig/instance_rate.h); jobs
//   in different instances never interfere. GpuLoad.useful_busy = sum over jobs of rate x sm_util
//   x instance SMs / device SMs (the busy share of the whole GPU's SMs); overhead = 0.
// Caveat of statelessness: the assignment is a function of the current residents, so when jobs
// arrive or leave, a resident may be costed in another instance that fits it (a real process
// cannot move). Instances of one profile are interchangeable; a move between profiles of equal
// memory (e.g. 1g.10gb and 2g.10gb on A100-40GB) can change its rate.
#pragma once

#include <deque>
#include <span>
#include <string>
#include <vector>

#include "models/mig/layout.h"
#include "models/mig/mig_parted.h"
#include "sim/json_fields.h"
#include "sim/sharing_model.h"

namespace gpumux {

class MigModel : public SharingModel {
 public:
  // Reads `params` (see above); throws InputError naming the key, or the mig-parted file's line.
  explicit MigModel(JsonObject& params);

  std::string_view name() const override { return "mig"; }
  bool admits(const GpuView& gpu, const JobSpec& job) const override;
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override;
  std::vector<ModelParameter> parameters() const override { return declared_; }
  void check_device(const DeviceProfile& device) const override;
  int layout_count(const DeviceProfile& device) const override;
  bool plan_reconfiguration(Time now, const Cluster& cluster, GpuViewBuilder& views,
                            const JobSpec& blocked, Reconfiguration& out) const override;

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
  bool fits(const DeviceProfile& device, const MigProfile& profile, const JobSpec& job) const;
  bool augment(const DeviceProfile& device, const Resolved& r, std::span<const JobSpec* const> jobs,
               int j, std::span<int> instance_of) const;
  bool assign_resolved(const DeviceProfile& device, const Resolved& r,
                       std::span<const JobSpec* const> jobs, std::span<int> instance_of) const;

  enum class Source { kList, kPerDevice, kMigParted, kCandidates };
  Source source_ = Source::kList;
  std::vector<std::string> layout_;                                           // kList
  std::vector<std::pair<std::string, std::vector<std::string>>> per_device_;  // kPerDevice
  MigPartedConfig mig_parted_;                                                // kMigParted
  std::string layout_where_;  // where the layout was given, for errors
  bool compute_aware_ = false;
  // Dynamic repartitioning (`layouts` + `repartition`): candidate layouts of every MIG GPU.
  std::vector<std::vector<std::string>> candidates_;
  Time reconfiguration_delay_ = Time::from_seconds(10);
  Time reset_delay_ = Time::from_seconds(60);
  Time hysteresis_ = Time::from_seconds(300);
  mutable std::vector<std::uint8_t> empty_fit_;  // scratch: per layout, an empty GPU admits
  std::vector<ModelParameter> declared_;

  // Cache and scratch: resolved layouts by device name; matching state sized up front so that
  // compute_rates does not allocate.
  mutable std::deque<Resolved> resolved_;  // a deque: references stay valid as it grows
  mutable std::vector<const JobSpec*> jobs_;
  mutable std::vector<int> order_;
  mutable std::vector<int> instance_of_;
  mutable std::vector<int> owner_;
  mutable std::vector<std::uint8_t> visited_;
};

}  // namespace gpumux
