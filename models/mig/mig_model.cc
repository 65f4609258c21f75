#include "models/mig/mig_model.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "models/mig/instance_rate.h"
#include "models/mig/profile_selection.h"
#include "models/mig/profile_sizing.h"
#include "sim/state/cluster.h"
#include "sim/state/job_table.h"

namespace gpumux {

namespace {

// Scratch capacity reserved up front: more than any MIG table allows instances per GPU (7).
constexpr std::size_t kScratch = 64;

// Migration costs when the scenario gives none: assumptions, not measurements (docs/gpu-facts.md has no
// checkpoint figure). A checkpoint writes at most an instance's memory (<= 40 GB, usually a few
// GB) to local storage at a few GB/s; a restart starts a process and a CUDA context, loads the
// framework and reads the checkpoint back (models/mig/README.md, "Migration").
constexpr double kDefaultCheckpointS = 10.0;
constexpr double kDefaultRestartS = 20.0;
// Profile-guided sizing: a job accepts an instance that runs it at most 25% slower than its best.
constexpr double kDefaultMaxSlowdown = 1.25;

std::vector<std::string> profile_list(const nlohmann::json& v, const std::string& where,
                                      const std::string& field) {
  if (!v.is_array()) {
    throw InputError(where, field, "expected a list of MIG profile names, got " + describe_json(v));
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      throw InputError(where + "/" + std::to_string(i), field,
                       "expected a MIG profile name, got " + describe_json(v[i]));
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : " + ") + n;
  return s.empty() ? "(none)" : s;
}

}  // namespace

MigModel::MigModel(JsonObject& p) {
  const bool has_layout = p.has("layout"), has_parted = p.has("mig_parted");
  const bool has_candidates = p.has("layouts");
  if (static_cast<int>(has_layout) + static_cast<int>(has_parted) +
          static_cast<int>(has_candidates) !=
      1) {
    throw InputError(p.where(), has_layout ? "mig_parted" : "layout",
                     "give exactly one of 'layout' (a list of MIG profile names), 'mig_parted' "
                     "with 'config', or 'layouts' (candidate layouts for repartitioning)");
  }
  std::string layout_source;
  bool repartition_given = false;
  bool checkpoint_s_given = false, restart_s_given = false, checkpoint_given = false;
  if (has_candidates) {
    source_ = Source::kCandidates;
    layout_where_ = p.where("layouts");
    const nlohmann::json& v = p.raw("layouts");
    if (!v.is_array() || v.empty()) {
      throw InputError(layout_where_, "layouts",
                       "expected a non-empty array of layouts (each a list of profile names; "
                       "[] = MIG off)");
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      candidates_.push_back(profile_list(v[i], layout_where_ + "/" + std::to_string(i), "layouts"));
      layout_source += (layout_source.empty() ? "" : " | ") + joined(candidates_.back());
    }
    layout_source = "scenario candidates (" + layout_source + "); starts in the first";
    repartition_given = p.has("repartition");
    if (repartition_given) {
      JsonObject r = p.object("repartition");
      reconfiguration_delay_ =
          Time::from_seconds(r.optional_number("reconfiguration_s", 10.0, 0.0, 1e6));
      reset_delay_ = Time::from_seconds(r.optional_number("reset_s", 60.0, 0.0, 1e6));
      hysteresis_ = Time::from_seconds(r.optional_number("hysteresis_s", 300.0, 0.0, 1e9));
      lookahead_ = static_cast<int>(
          r.optional_int("lookahead", 32, 0, static_cast<std::int64_t>(kReconfigurationLookahead)));
      if (r.has("migration")) {
        JsonObject m = r.object("migration");
        migration_.enabled = true;
        migration_.checkpoint = m.optional_bool("checkpoint", true);
        migration_.checkpoint_time = Time::from_seconds(m.optional_number(
            "checkpoint_s", kDefaultCheckpointS, 0.0, 1e6));
        migration_.restart_time =
            Time::from_seconds(m.optional_number("restart_s", kDefaultRestartS, 0.0, 1e6));
        m.finish();
        checkpoint_s_given = m.has("checkpoint_s");
        restart_s_given = m.has("restart_s");
        checkpoint_given = m.has("checkpoint");
      }
      r.finish();
    } else {
      p.allow("repartition");
    }
    p.allow("config");
  } else if (has_layout) {
    p.allow("layouts");
    p.allow("repartition");
    layout_where_ = p.where("layout");
    const nlohmann::json& v = p.raw("layout");
    if (v.is_object()) {
      source_ = Source::kPerDevice;
      for (const auto& [device, list] : v.items()) {
        per_device_.emplace_back(device,
                                 profile_list(list, layout_where_ + "/" + device, "layout"));
        layout_source +=
            (layout_source.empty() ? "" : "; ") + device + ": " + joined(per_device_.back().second);
      }
    } else {
      source_ = Source::kList;
      layout_ = profile_list(v, layout_where_, "layout");
      layout_source = joined(layout_);
    }
    layout_source = "scenario (" + layout_source + ")";
    p.allow("config");
    if (p.has("config")) {
      throw InputError(p.where("config"), "config",
                       "'config' goes with 'mig_parted', not 'layout'");
    }
  } else {
    p.allow("layouts");
    p.allow("repartition");
    source_ = Source::kMigParted;
    const std::string file = p.required_string("mig_parted");
    const std::string config = p.required_string("config");
    layout_where_ = p.where("mig_parted");
    mig_parted_ = read_mig_parted(file, config);
    layout_source = "mig-parted " + file + " config " + config;
  }
  compute_aware_ = p.optional_bool("compute_aware", false);
  const std::string aware_source = p.has("compute_aware") ? "scenario" : "default";
  bool sizing_bound_given = false;
  if (p.has("sizing")) {
    JsonObject z = p.object("sizing");
    max_slowdown_ = z.optional_number("max_slowdown", kDefaultMaxSlowdown, 1.0, 1e6);
    sizing_bound_given = z.has("max_slowdown");
    z.finish();
    if (compute_aware_) {
      throw InputError(p.where("sizing"), "sizing",
                       "give one of 'compute_aware' and 'sizing': both choose instances by the "
                       "SMs a job needs (sizing with max_slowdown 1 asks for its full speed)");
    }
  }
  const std::string strategy = p.optional_string("strategy", "auto");
  const std::string strategy_source = p.has("strategy") ? "scenario" : "default";
  if (strategy == "auto") {
    strategy_ = MigStrategy::kAuto;
  } else if (strategy == "mixed") {
    strategy_ = MigStrategy::kMixed;
  } else if (strategy == "single") {
    strategy_ = MigStrategy::kSingle;
  } else {
    throw InputError(p.where("strategy"), "strategy",
                     "unknown strategy '" + strategy + "' (valid: auto, mixed, single)");
  }
  if (max_slowdown_ > 0.0 && strategy_ != MigStrategy::kAuto) {
    throw InputError(p.where("sizing"), "sizing",
                     "the Kubernetes strategies place jobs blind to their needs; 'sizing' "
                     "works with strategy 'auto' only");
  }
  if (strategy_ == MigStrategy::kSingle && source_ == Source::kCandidates) {
    throw InputError(p.where("strategy"), "strategy",
                     "'single' gives every GPU of a node the same layout, which repartitioning "
                     "one GPU at a time ('layouts') would break; use 'auto' or 'mixed'");
  }
  p.finish();

  declared_ = {
      {"layout_entries",
       static_cast<double>(source_ == Source::kList         ? layout_.size()
                           : source_ == Source::kPerDevice  ? per_device_.size()
                           : source_ == Source::kCandidates ? candidates_.size()
                                                            : mig_parted_.entries.size()),
       source_ == Source::kList         ? "instances per GPU"
       : source_ == Source::kPerDevice  ? "device types"
       : source_ == Source::kCandidates ? "candidate layouts"
                                        : "mig-parted entries",
       layout_source,
       "static MIG layout; offsets placed largest first at the lowest allowed slice"},
      ModelParameter::on_off(
          "compute_aware", compute_aware_, aware_source,
          "true: a job without a requested profile also needs an instance with the SMs it "
          "occupies"),
      ModelParameter::chosen(
          "strategy", static_cast<int>(strategy_), strategy, strategy_source,
          "how jobs find instances: auto (gpumux picks the smallest fitting instance), mixed / "
          "single (Kubernetes device-plugin strategies: placement blind to memory)"),
      {"jobs_per_instance", 1.0, "jobs", "model (static MIG: one job per GPU instance)",
       "each job holds one whole instance; memory is a hard per-instance limit"},
      {"bandwidth_demand", 1.0, "x sm_util x sm_share",
       "assumption (no bandwidth field in traces; models/mig/README.md)",
       "a job's memory-bandwidth demand as a fraction of the GPU's, for the roofline rate"},
  };
  if (source_ == Source::kCandidates) {
    const std::string src = repartition_given ? "scenario" : "default";
    declared_.push_back({"repartition.reconfiguration_s", reconfiguration_delay_.seconds(), "s",
                         src, "time to destroy and create instances once a GPU is empty"});
    declared_.push_back({"repartition.reset_s", reset_delay_.seconds(), "s", src,
                         "time instead when MIG mode toggles on Ampere (GPU reset)"});
    declared_.push_back({"repartition.hysteresis_s", hysteresis_.seconds(), "s", src,
                         "a GPU is not changed again within this time"});
    declared_.push_back({"repartition.lookahead", static_cast<double>(lookahead_), "jobs", src,
                         "queued jobs behind the head a new layout is chosen for"});
    declared_.push_back(ModelParameter::on_off(
        "repartition.migration", migration_.enabled, migration_.enabled ? "scenario" : "default",
        "true: a reconfigured GPU's residents are moved off (checkpoint-restart) instead of "
        "drained"));
  }
  if (migration_.enabled) {
    const auto src = [](bool given) -> std::string {
      return given ? "scenario" : "default (assumption; models/mig/README.md, \"Migration\")";
    };
    declared_.push_back(ModelParameter::on_off(
        "repartition.migration.checkpoint", migration_.checkpoint,
        checkpoint_given ? "scenario" : "default",
        "true: a moved job writes a checkpoint first (no work lost); false: it loses the work "
        "since its last periodic checkpoint"));
    declared_.push_back({"repartition.migration.checkpoint_s", migration_.checkpoint_time.seconds(),
                         "s", src(checkpoint_s_given),
                         "wall time a moved job spends writing its checkpoint"});
    declared_.push_back({"repartition.migration.restart_s", migration_.restart_time.seconds(), "s",
                         src(restart_s_given),
                         "wall time a moved job spends restoring before it progresses"});
  }
  if (max_slowdown_ > 0.0) {
    declared_.push_back({"sizing.max_slowdown", max_slowdown_, "x",
                         sizing_bound_given ? "scenario" : "default (a choice)",
                         "a job fits an instance only within this slowdown of its best rate on "
                         "the device (roofline profile, models/mig/profile_sizing.h)"});
  }
  jobs_.reserve(kScratch);
  order_.reserve(kScratch);
  instance_of_.reserve(kScratch);
  owner_.reserve(kScratch);
  visited_.reserve(kScratch);
}

const MigDeviceLayout& MigModel::layout_for(const DeviceProfile& device) const {
  return resolve(device).layout;
}

void MigModel::check_device(const DeviceProfile& device) const {
  for (int i = 0; i < layout_count(device); ++i) resolve(device, i);
}

void MigModel::check_cluster(std::span<const DeviceProfile> devices,
                             std::span<const int> gpus_per_node) const {
  std::string without;
  bool any = false;
  for (const DeviceProfile& d : devices) {
    any = any || d.supports_mig();
    if (!d.supports_mig()) without += (without.empty() ? "" : ", ") + d.name;
  }
  if (!any) {
    throw InputError(layout_where_, "",
                     "MIG is configured, but no device of the cluster supports MIG (" + without +
                         "): every GPU would run whole, as under 'exclusive'");
  }
  if (source_ == Source::kPerDevice) {
    for (const auto& [name, list] : per_device_) {
      for (const DeviceProfile& d : devices) {
        if (d.name == name && !d.supports_mig() && !list.empty()) {
          throw InputError(layout_where_ + "/" + name, "layout",
                           "a MIG layout for " + name + ", which does not support MIG");
        }
      }
    }
  }
  if (source_ != Source::kMigParted) return;
  for (std::size_t k = 0; k < mig_parted_.entries.size(); ++k) {
    const MigPartedEntry& e = mig_parted_.entries[k];
    int most = 0;  // the most GPUs a node of a device this entry applies to has
    for (std::size_t i = 0; i < devices.size(); ++i) {
      if (devices[i].supports_mig() && device_filter_matches(e, devices[i])) {
        most = std::max(most, gpus_per_node[i]);
      }
    }
    if (most == 0) continue;  // an entry for device types this cluster does not have
    for (int index : e.devices) {
      if (index >= most) {
        throw InputError(
            e.where, "mig-configs." + mig_parted_.name + "[" + std::to_string(k) + "].devices",
            "GPU index " + std::to_string(index) + " is beyond every node (at most " +
                std::to_string(most) + " GPUs, indices 0-" + std::to_string(most - 1) + ")");
      }
    }
  }
}

int MigModel::layout_count(const DeviceProfile& device) const {
  if (!device.supports_mig()) return 1;
  if (source_ == Source::kCandidates) return static_cast<int>(candidates_.size());
  if (source_ == Source::kMigParted) return static_cast<int>(parted_for(device).distinct.size());
  return 1;
}

int MigModel::initial_layout(const DeviceProfile& device, int index_in_node) const {
  if (source_ != Source::kMigParted || !device.supports_mig()) return 0;
  const std::vector<int>& by_index = parted_for(device).by_index;
  return by_index[std::min(static_cast<std::size_t>(std::max(index_in_node, 0)),
                           by_index.size() - 1)];
}

const MigPartedIndexLayouts& MigModel::parted_for(const DeviceProfile& device) const {
  for (const auto& [name, layouts] : parted_) {
    if (name == device.name) return layouts;
  }
  MigPartedIndexLayouts layouts = mig_parted_index_layouts(mig_parted_, device);
  if (strategy_ == MigStrategy::kSingle && layouts.distinct.size() > 1) {
    throw InputError(mig_parted_.file, "mig-configs." + mig_parted_.name,
                     "strategy 'single' needs every GPU of a " + device.name +
                         " node split the same way, but GPU indices get different layouts");
  }
  parted_.emplace_back(device.name, std::move(layouts));
  return parted_.back().second;
}

const MigDeviceLayout& MigModel::layout_at(const DeviceProfile& device, int layout) const {
  return resolve(device, layout).layout;
}

const MigProfile& MigModel::instance_profile(const DeviceProfile& device, int layout,
                                             int instance) const {
  return instance_profile_of(device, resolve(device, layout), instance);
}

int MigModel::slot_count(const DeviceProfile& device, int layout) const {
  const Resolved& r = resolve(device, layout);
  return r.layout.mig_enabled ? static_cast<int>(r.layout.instances.size()) : 0;
}

SlotInfo MigModel::slot_info(const DeviceProfile& device, int layout, int slot) const {
  const MigProfile& p = instance_profile(device, layout, slot);
  return SlotInfo{p.name, p.compute_slices, p.memory};
}

bool MigModel::slot_fits(const DeviceProfile& device, int layout, int slot,
                         const JobSpec& job) const {
  return job.gpus == 1 && fits(device, instance_profile(device, layout, slot), job);
}

const MigModel::Resolved& MigModel::resolve(const DeviceProfile& device, int index) const {
  for (const Resolved& r : resolved_) {
    if (r.device == device.name && r.index == index) return r;
  }
  Resolved r;
  r.device = device.name;
  r.index = index;
  if (!device.supports_mig()) {
    // A whole GPU whatever the configuration says: a cluster-wide layout or mig-parted config
    // also reaches the cluster's GPUs without MIG.
  } else if (source_ == Source::kMigParted) {
    r.layout = parted_for(device).distinct[static_cast<std::size_t>(index)];
  } else {
    const std::vector<std::string>* names = nullptr;
    std::string where = layout_where_;
    if (source_ == Source::kList) {
      names = &layout_;
    } else if (source_ == Source::kCandidates) {
      const auto& list = candidates_[static_cast<std::size_t>(index)];
      if (!list.empty()) names = &list;  // [] = MIG off: a whole GPU
      where += "/" + std::to_string(index);
    } else {
      for (const auto& [name, list] : per_device_) {
        if (name == device.name) {
          names = &list;
          where += "/" + name;
        }
      }
    }
    if (names != nullptr) {
      const MigPlacement placed = place_profiles(device, *names);
      if (!placed.ok) {
        throw InputError(
            where, "layout",
            joined(*names) + " is not a valid MIG layout on " + device.name + ": " + placed.error);
      }
      r.layout.mig_enabled = true;
      r.layout.instances = placed.instances;
    }
  }
  for (const MigInstanceSpec& inst : r.layout.instances) {
    r.profile.push_back(mig_profile_index(device, inst.profile));
    r.by_size.push_back(static_cast<int>(r.by_size.size()));
    if (strategy_ == MigStrategy::kSingle && inst.profile != r.layout.instances.front().profile) {
      throw InputError(source_ == Source::kMigParted ? mig_parted_.file : layout_where_, "layout",
                       "strategy 'single' advertises every instance of a GPU as one "
                       "nvidia.com/gpu, so a layout may use one profile only; " +
                           device.name + " gets " + inst.profile + " and " +
                           r.layout.instances.front().profile);
    }
  }
  std::stable_sort(r.by_size.begin(), r.by_size.end(), [&](int a, int b) {
    const MigProfile& pa = device.mig_profiles[static_cast<std::size_t>(r.profile[a])];
    const MigProfile& pb = device.mig_profiles[static_cast<std::size_t>(r.profile[b])];
    if (pa.memory != pb.memory) return pa.memory < pb.memory;
    if (pa.compute_slices != pb.compute_slices) return pa.compute_slices < pb.compute_slices;
    if (pa.memory_slices != pb.memory_slices) return pa.memory_slices < pb.memory_slices;
    return r.layout.instances[static_cast<std::size_t>(a)].start <
           r.layout.instances[static_cast<std::size_t>(b)].start;
  });
  resolved_.push_back(std::move(r));
  return resolved_.back();
}

bool MigModel::fits(const DeviceProfile& device, const MigProfile& profile,
                    const JobSpec& job) const {
  switch (strategy_) {
    case MigStrategy::kAuto:
      if (!job.mig_profile.empty())
        return job.mig_profile == profile.name && job.memory <= profile.memory;
      if (max_slowdown_ > 0.0) {
        return within_slowdown(device, profile, job, max_slowdown_, sizing_best(device, job));
      }
      return instance_fits(device, profile, job, compute_aware_);
    case MigStrategy::kMixed:  // only a nvidia.com/mig-<profile> request lands on an instance
      return job.mig_profile == profile.name;
    case MigStrategy::kSingle:  // nvidia.com/gpu; a named profile acts as a node selector
      return job.mig_profile.empty() || job.mig_profile == profile.name;
  }
  return false;
}

std::span<const MigProfile* const> MigModel::offered_profiles(const DeviceProfile& device) const {
  for (const auto& [name, profiles] : offered_) {
    if (name == device.name) return profiles;
  }
  std::vector<const MigProfile*> profiles;
  for (int l = 0; l < layout_count(device); ++l) {
    const Resolved& r = resolve(device, l);
    for (std::size_t i = 0; i < r.layout.instances.size(); ++i) {
      const MigProfile* p = &instance_profile_of(device, r, static_cast<int>(i));
      if (std::find(profiles.begin(), profiles.end(), p) == profiles.end()) profiles.push_back(p);
    }
  }
  offered_.emplace_back(device.name, std::move(profiles));
  return offered_.back().second;
}

double MigModel::sizing_best(const DeviceProfile& device, const JobSpec& job) const {
  SizingMemo& m = sizing_memo_;
  if (m.sm_share != job.sm_share || m.sm_util != job.sm_util || m.memory != job.memory ||
      m.device != device.name) {
    m.best = best_instance_rate(device, job, offered_profiles(device));
    m.device = device.name;
    m.sm_share = job.sm_share;
    m.sm_util = job.sm_util;
    m.memory = job.memory;
  }
  return m.best;
}

bool MigModel::fits_whole_gpu(const DeviceProfile& device, const JobSpec& job) const {
  if (!job.mig_profile.empty()) return false;  // a MIG request never lands on a whole GPU
  return strategy_ != MigStrategy::kAuto || job.memory <= device.memory;
}

bool MigModel::augment(const DeviceProfile& device, const Resolved& r,
                       std::span<const JobSpec* const> jobs, int j,
                       std::span<int> instance_of) const {
  for (int i : r.by_size) {
    const auto ui = static_cast<std::size_t>(i);
    if (visited_[ui] != 0) continue;
    const MigProfile& p = device.mig_profiles[static_cast<std::size_t>(r.profile[ui])];
    if (!fits(device, p, *jobs[static_cast<std::size_t>(j)])) continue;
    visited_[ui] = 1;
    if (owner_[ui] < 0 || augment(device, r, jobs, owner_[ui], instance_of)) {
      owner_[ui] = j;
      instance_of[static_cast<std::size_t>(j)] = i;
      return true;
    }
  }
  return false;
}

bool MigModel::assign_resolved(const DeviceProfile& device, const Resolved& r,
                               std::span<const JobSpec* const> jobs,
                               std::span<int> instance_of) const {
  const std::size_t n = jobs.size(), m = r.layout.instances.size();
  std::fill(instance_of.begin(), instance_of.end(), -1);
  if (n > m) return false;
  // resize within the reserved capacity does not allocate.
  order_.resize(n);
  owner_.assign(m, -1);
  visited_.resize(m);
  auto needed = [&](const JobSpec& j) {
    if (!j.mig_profile.empty()) {
      const int k = mig_profile_index(device, j.mig_profile);
      if (k >= 0)
        return std::max(j.memory, device.mig_profiles[static_cast<std::size_t>(k)].memory);
    }
    return j.memory;
  };
  // Insertion sort: stable like std::stable_sort, which may allocate a buffer; n is at most the
  // instances of one GPU.
  for (std::size_t k = 0; k < n; ++k) {
    const int j = static_cast<int>(k);
    const MemoryMiB need = needed(*jobs[k]);
    std::size_t pos = k;
    while (pos > 0 && needed(*jobs[static_cast<std::size_t>(order_[pos - 1])]) < need) {
      order_[pos] = order_[pos - 1];
      --pos;
    }
    order_[pos] = j;
  }
  bool complete = true;
  for (int j : order_) {  // greedy: the smallest free instance that fits
    for (int i : r.by_size) {
      const auto ui = static_cast<std::size_t>(i);
      if (owner_[ui] >= 0) continue;
      if (!fits(device, device.mig_profiles[static_cast<std::size_t>(r.profile[ui])],
                *jobs[static_cast<std::size_t>(j)])) {
        continue;
      }
      owner_[ui] = j;
      instance_of[static_cast<std::size_t>(j)] = i;
      break;
    }
    complete = complete && instance_of[static_cast<std::size_t>(j)] >= 0;
  }
  if (complete) return true;
  for (int j : order_) {  // augmenting paths for the jobs the greedy pass left out
    if (instance_of[static_cast<std::size_t>(j)] >= 0) continue;
    std::fill(visited_.begin(), visited_.end(), std::uint8_t{0});
    if (!augment(device, r, jobs, j, instance_of)) return false;
  }
  return true;
}

bool MigModel::assign(const DeviceProfile& device, std::span<const JobSpec* const> jobs,
                      std::span<int> instance_of) const {
  const Resolved& r = resolve(device);
  if (!r.layout.mig_enabled) return false;
  return assign_resolved(device, r, jobs, instance_of);
}

int MigModel::free_fitting_instance(const GpuView& gpu, const Resolved& r,
                                    const JobSpec& job) const {
  for (int i : r.by_size) {
    if (std::find(gpu.resident_slot.begin(), gpu.resident_slot.end(), i) !=
        gpu.resident_slot.end()) {
      continue;
    }
    if (fits(gpu.device, instance_profile_of(gpu.device, r, i), job)) return i;
  }
  return -1;
}

bool MigModel::resident_instances(const GpuView& gpu, const Resolved& r) const {
  instance_of_.resize(gpu.residents.size());
  if (gpu.resident_slot.size() == gpu.residents.size()) {
    std::copy(gpu.resident_slot.begin(), gpu.resident_slot.end(), instance_of_.begin());
    return true;
  }
  return assign_resolved(gpu.device, r, gpu.residents, instance_of_);
}

const MigProfile& MigModel::instance_profile_of(const DeviceProfile& device, const Resolved& r,
                                                int instance) const {
  return device
      .mig_profiles[static_cast<std::size_t>(r.profile[static_cast<std::size_t>(instance)])];
}

double MigModel::gpu_room(const GpuView& gpu) const {
  const Resolved& r = resolve(gpu.device, gpu.layout);
  if (!r.layout.mig_enabled) {
    return gpu.residents.empty() ? static_cast<double>(gpu.device.memory.mib()) : -1.0;
  }
  if (gpu.resident_slot.size() != gpu.residents.size()) return kUnboundedRoom;  // no slots known
  double most = -1.0;
  for (std::size_t i = 0; i < r.layout.instances.size(); ++i) {
    if (std::find(gpu.resident_slot.begin(), gpu.resident_slot.end(), static_cast<int>(i)) !=
        gpu.resident_slot.end()) {
      continue;
    }
    most = std::max(
        most,
        static_cast<double>(instance_profile_of(gpu.device, r, static_cast<int>(i)).memory.mib()));
  }
  return most;
}

double MigModel::job_need(const JobSpec& job) const {
  return strategy_ == MigStrategy::kAuto ? static_cast<double>(job.memory.mib()) : 0.0;
}

int MigModel::choose_slot(const GpuView& gpu, const JobSpec& job) const {
  const Resolved& r = resolve(gpu.device, gpu.layout);
  if (!r.layout.mig_enabled) return 0;
  const int i = free_fitting_instance(gpu, r, job);
  if (i < 0) throw std::logic_error("mig: a job was placed where no free instance fits it");
  return i;
}

bool MigModel::admits(const GpuView& gpu, const JobSpec& job) const {
  const Resolved& r = resolve(gpu.device, gpu.layout);
  if (!r.layout.mig_enabled) return gpu.residents.empty() && fits_whole_gpu(gpu.device, job);
  if (job.gpus != 1) return false;
  if (gpu.residents.size() + 1 > r.layout.instances.size()) return false;
  if (gpu.residents.empty()) {
    // The job alone: the matching below would give it the smallest instance that fits, so it
    // says yes exactly when one fits. Asked of every empty GPU placement visits, hence the
    // shortcut (the same `fits` questions in the same order, without the matching's set-up).
    for (int i : r.by_size) {
      if (fits(gpu.device, instance_profile_of(gpu.device, r, i), job)) return true;
    }
    return false;
  }
  // Residents hold their instances (a running process cannot move): a free one must fit.
  if (gpu.resident_slot.size() == gpu.residents.size() && !gpu.residents.empty()) {
    return free_fitting_instance(gpu, r, job) >= 0;
  }
  jobs_.assign(gpu.residents.begin(), gpu.residents.end());
  jobs_.push_back(&job);
  instance_of_.resize(jobs_.size());
  return assign_resolved(gpu.device, r, jobs_, instance_of_);
}

void MigModel::compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const {
  const Resolved& r = resolve(gpu.device, gpu.layout);
  load.overhead = 0.0;
  if (!r.layout.mig_enabled) {
    std::fill(rates.begin(), rates.end(), 1.0);
    load.useful_busy = std::min(1.0, gpu.residents.front()->sm_util);
    return;
  }
  const DeviceProfile& d = gpu.device;
  // Residents this model admitted always have an instance (a subset of an assignable set is
  // assignable). Residents placed without admission that find none are costed as if in the
  // smallest instance of the layout.
  resident_instances(gpu, r);
  double busy = 0.0;
  for (std::size_t k = 0; k < gpu.residents.size(); ++k) {
    const JobSpec& job = *gpu.residents[k];
    int i = instance_of_[k];
    if (i < 0) i = r.by_size.empty() ? -1 : r.by_size.front();
    if (i < 0) {
      rates[k] = 1.0;  // no instance at all: nothing to cost against; never admitted here
      continue;
    }
    const MigSupply s = mig_supply(d, instance_profile_of(d, r, i));
    rates[k] = mig_instance_rate(mig_demand(job), s);
    busy += rates[k] * job.sm_util * s.sm_fraction;
  }
  load.useful_busy = std::min(1.0, busy);
}

bool MigModel::memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                            Time& recovery) const {
  recovery = Time::zero();
  if (gpu.resident_memory.size() != gpu.residents.size()) return false;
  const Resolved& r = resolve(gpu.device, gpu.layout);
  bool any = false;
  if (!r.layout.mig_enabled) {
    for (std::size_t k = 0; k < gpu.residents.size(); ++k) {
      if (gpu.resident_memory[k] > gpu.device.memory) killed[k] = 1, any = true;
    }
    return any;
  }
  if (!resident_instances(gpu, r)) return false;
  for (std::size_t k = 0; k < gpu.residents.size(); ++k) {
    const int i = instance_of_[k];
    if (i < 0) continue;
    // The instance's memory is all the process can allocate: past it, its own allocation
    // fails; the other instances' memory is fenced off and never notices.
    if (gpu.resident_memory[k] > instance_profile_of(gpu.device, r, i).memory) {
      killed[k] = 1;
      any = true;
    }
  }
  return any;
}

int MigModel::jobs_served(const DeviceProfile& device, int layout, const JobSpec& head,
                          std::span<const JobSpec* const> behind) const {
  const Resolved& r = resolve(device, layout);
  const GpuView empty{device, {}, MemoryMiB(0), {}, layout};
  if (!r.layout.mig_enabled) return admits(empty, head) ? 1 : 0;  // a whole GPU: one job
  taken_.assign(r.layout.instances.size(), 0);
  int served = take_free_instance(device, r, head) ? 1 : 0;
  const std::size_t n = std::min(behind.size(), static_cast<std::size_t>(lookahead_));
  for (std::size_t k = 0; k < n; ++k) served += take_free_instance(device, r, *behind[k]) ? 1 : 0;
  return served;
}

bool MigModel::take_free_instance(const DeviceProfile& device, const Resolved& r,
                                  const JobSpec& job) const {
  if (job.gpus != 1) return false;
  for (int i : r.by_size) {
    const auto ui = static_cast<std::size_t>(i);
    if (taken_[ui] != 0 || !fits(device, instance_profile_of(device, r, i), job)) continue;
    taken_[ui] = 1;
    return true;
  }
  return false;
}

int MigModel::jobs_served_with(const DeviceProfile& device, int layout,
                               std::span<const JobSpec* const> residents, const JobSpec& head,
                               std::span<const JobSpec* const> behind) const {
  const Resolved& r = resolve(device, layout);
  if (!r.layout.mig_enabled) {  // a whole GPU: the head alone
    return residents.empty() && fits_whole_gpu(device, head) ? 1 : -1;
  }
  jobs_.assign(residents.begin(), residents.end());
  jobs_.push_back(&head);
  instance_of_.resize(jobs_.size());
  for (const JobSpec* j : jobs_) {
    if (j->gpus != 1) return -1;
  }
  if (!assign_resolved(device, r, jobs_, instance_of_)) return -1;
  taken_.assign(r.layout.instances.size(), 0);
  for (int i : instance_of_) taken_[static_cast<std::size_t>(i)] = 1;
  int served = static_cast<int>(jobs_.size());
  const std::size_t n = std::min(behind.size(), static_cast<std::size_t>(lookahead_));
  for (std::size_t k = 0; k < n; ++k) served += take_free_instance(device, r, *behind[k]) ? 1 : 0;
  return served;
}

bool MigModel::plan_reconfiguration(Time now, const Cluster& cluster, GpuViewBuilder& views,
                                    const JobSpec& blocked, std::span<const JobSpec* const> behind,
                                    Reconfiguration& out) const {
  if (source_ != Source::kCandidates || blocked.gpus != 1) return false;
  // Per device type and layout (few of each, so the scan over GPUs stays cheap): whether an
  // empty GPU in it would take the head, and how many of the waiting jobs it would start.
  const auto& devices = cluster.devices();
  const std::size_t layouts = candidates_.size();
  empty_fit_.assign(devices.size() * layouts, 0);
  served_.assign(devices.size() * layouts, 0);
  for (std::size_t d = 0; d < devices.size(); ++d) {
    for (int l = 0; l < layout_count(devices[d]); ++l) {
      const GpuView empty{devices[d], {}, MemoryMiB(0), {}, l};
      const std::size_t at = d * layouts + static_cast<std::size_t>(l);
      empty_fit_[at] = admits(empty, blocked) ? 1 : 0;
      served_[at] = jobs_served(devices[d], l, blocked, behind);
    }
  }
  // The GPU that drains soonest (fewest residents), lowest index on ties; skip GPUs changed
  // within the hysteresis window, GPUs not taking jobs (draining, recovering), and GPUs whose
  // current layout would take the head once the right instance frees (draining them cannot be
  // quicker than waiting for that instance).
  bool found = false;
  std::size_t best_residents = 0;
  for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) {
    const GpuState& gpu = cluster.gpu(g);
    const DeviceProfile& device = cluster.device_of(g);
    if (!device.supports_mig() || !gpu.available || gpu.draining) continue;
    if (now - gpu.last_reconfigured < hysteresis_) continue;
    if (found && gpu.residents.size() >= best_residents) continue;
    const std::size_t row = static_cast<std::size_t>(gpu.device) * layouts;
    const std::size_t current = row + static_cast<std::size_t>(gpu.layout);
    // The layout that starts the most waiting jobs; the earlier candidate on ties.
    int target = -1;
    for (int l = 0; l < layout_count(device); ++l) {
      const std::size_t at = row + static_cast<std::size_t>(l);
      if (l == gpu.layout || empty_fit_[at] == 0) continue;
      if (target < 0 || served_[at] > served_[row + static_cast<std::size_t>(target)]) target = l;
    }
    if (migration_.enabled) {
      // Moving the residents is cheap: the new layout must hold them and the head together.
      const GpuView view = views.view(g);
      target = -1;
      int most = -1;
      for (int l = 0; l < layout_count(device); ++l) {
        if (l == gpu.layout) continue;
        const int served = jobs_served_with(device, l, view.residents, blocked, behind);
        if (served > most) target = l, most = served;
      }
      if (target < 0) continue;
    } else if (target < 0 || (empty_fit_[current] != 0 &&
                              served_[row + static_cast<std::size_t>(target)] <= served_[current])) {
      continue;
    }
    // Toggling MIG mode needs a GPU reset on Ampere (docs/gpu-facts.md "MIG").
    const bool toggles = candidates_[static_cast<std::size_t>(target)].empty() !=
                         candidates_[static_cast<std::size_t>(gpu.layout)].empty();
    const bool reset = toggles && device.architecture == "ampere";
    out = Reconfiguration{g, target, reset ? reset_delay_ : reconfiguration_delay_, migration_};
    best_residents = gpu.residents.size();
    found = true;
    if (best_residents == 0) break;
  }
  return found;
}

}  // namespace gpumux
