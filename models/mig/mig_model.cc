#include "models/mig/mig_model.h"

#include <algorithm>
#include <stdexcept>

#include "models/mig/instance_rate.h"
#include "models/mig/measured_speed.h"
#include "models/mig/profile_selection.h"
#include "models/mig/profile_sizing.h"
#include "sim/base/closest_names.h"

namespace gpumux {

namespace {

// Scratch capacity reserved up front: more than any MIG table allows instances per GPU (7).
constexpr std::size_t kScratch = 64;

}  // namespace

MigModel::MigModel(JsonObject& p) : params_(read_mig_params(p)) {
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
    throw InputError(params_.layout_where, "",
                     "MIG is configured, but no device of the cluster supports MIG (" + without +
                         "): every GPU would run whole, as under 'exclusive'");
  }
  if (params_.source == MigLayoutSource::kPerDevice) {
    // A key naming no device of the cluster (a misspelling such as "A100-40G") would leave the
    // GPUs it meant whole, a run as under 'exclusive' that looks like MIG's.
    std::vector<std::string> names;
    for (const DeviceProfile& d : devices) names.push_back(d.name);
    for (const auto& [name, list] : params_.per_device) {
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        const auto close = closest_names(name, names);
        throw InputError(params_.layout_where, "layout",
                         "device '" + name + "' is no device of the cluster (its devices: " +
                             join_names(names) + ")" +
                             (close.empty() ? std::string()
                                            : "; closest: " + join_names(close)));
      }
    }
    for (const auto& [name, list] : params_.per_device) {
      for (const DeviceProfile& d : devices) {
        if (d.name == name && !d.supports_mig() && !list.empty()) {
          throw InputError(params_.layout_where + "/" + name, "layout",
                           "a MIG layout for " + name + ", which does not support MIG");
        }
      }
    }
  }
  if (params_.source != MigLayoutSource::kMigParted) return;
  check_device_filters(devices);
  for (std::size_t k = 0; k < params_.mig_parted.entries.size(); ++k) {
    const MigPartedEntry& e = params_.mig_parted.entries[k];
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
            e.where,
            "mig-configs." + params_.mig_parted.name + "[" + std::to_string(k) + "].devices",
            "GPU index " + std::to_string(index) + " is beyond every node (at most " +
                std::to_string(most) + " GPUs, indices 0-" + std::to_string(most - 1) + ")");
      }
    }
  }
}

void MigModel::check_device_filters(std::span<const DeviceProfile> devices) const {
  const MigPartedConfig& config = params_.mig_parted;
  std::string filters, names;
  for (const MigPartedEntry& e : config.entries) {
    if (e.device_filter.empty()) return;  // an entry for every device type
    for (const DeviceProfile& d : devices) {
      if (device_filter_matches(e, d)) return;
    }
    for (const std::string& f : e.device_filter) filters += (filters.empty() ? "" : ", ") + f;
  }
  for (const DeviceProfile& d : devices) names += (names.empty() ? "" : ", ") + d.name;
  throw InputError(config.entries.front().where, "mig-configs." + config.name + ".device-filter",
                   "device-filter " + filters + " of config '" + config.name + "' in " +
                       config.file + " matches no GPU of the cluster (" + names +
                       "): MIG would stay off on every GPU; name the cluster's devices (a "
                       "built-in device name or its PCI id)");
}

int MigModel::layout_count(const DeviceProfile& device) const {
  if (!device.supports_mig()) return 1;
  if (params_.source == MigLayoutSource::kCandidates)
    return static_cast<int>(params_.candidates.size());
  if (params_.source == MigLayoutSource::kMigParted)
    return static_cast<int>(parted_for(device).distinct.size());
  return 1;
}

int MigModel::initial_layout(const DeviceProfile& device, int index_in_node) const {
  if (params_.source != MigLayoutSource::kMigParted || !device.supports_mig()) return 0;
  const std::vector<int>& by_index = parted_for(device).by_index;
  return by_index[std::min(static_cast<std::size_t>(std::max(index_in_node, 0)),
                           by_index.size() - 1)];
}

const MigPartedIndexLayouts& MigModel::parted_for(const DeviceProfile& device) const {
  for (const auto& [name, layouts] : parted_) {
    if (name == device.name) return layouts;
  }
  MigPartedIndexLayouts layouts = mig_parted_index_layouts(params_.mig_parted, device);
  if (params_.strategy == MigStrategy::kSingle && layouts.distinct.size() > 1) {
    throw InputError(params_.mig_parted.file, "mig-configs." + params_.mig_parted.name,
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
  } else if (params_.source == MigLayoutSource::kMigParted) {
    r.layout = parted_for(device).distinct[static_cast<std::size_t>(index)];
  } else {
    const std::vector<std::string>* names = nullptr;
    std::string where = params_.layout_where;
    if (params_.source == MigLayoutSource::kList) {
      names = &params_.layout;
    } else if (params_.source == MigLayoutSource::kCandidates) {
      const auto& list = params_.candidates[static_cast<std::size_t>(index)];
      if (!list.empty()) names = &list;  // [] = MIG off: a whole GPU
      where += "/" + std::to_string(index);
    } else {
      for (const auto& [name, list] : params_.per_device) {
        if (name == device.name) {
          names = &list;
          where += "/" + name;
        }
      }
    }
    if (names != nullptr) {
      const MigPlacement placed = place_profiles(device, *names);
      if (!placed.ok) {
        throw InputError(where, "layout",
                         joined_profiles(*names) + " is not a valid MIG layout on " + device.name +
                             ": " + placed.error);
      }
      r.layout.mig_enabled = true;
      r.layout.instances = placed.instances;
    }
  }
  for (const MigInstanceSpec& inst : r.layout.instances) {
    r.profile.push_back(mig_profile_index(device, inst.profile));
    r.by_size.push_back(static_cast<int>(r.by_size.size()));
    if (params_.strategy == MigStrategy::kSingle &&
        inst.profile != r.layout.instances.front().profile) {
      throw InputError(params_.source == MigLayoutSource::kMigParted ? params_.mig_parted.file
                                                                     : params_.layout_where,
                       "layout",
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
  switch (params_.strategy) {
    case MigStrategy::kAuto:
      if (!job.mig_profile.empty())
        return job.mig_profile == profile.name && job.memory <= profile.memory;
      if (params_.max_slowdown > 0.0) {
        return within_slowdown(device, profile, job, params_.max_slowdown, sizing_best(device, job),
                               params_.speed);
      }
      return instance_fits(device, profile, job, params_.compute_aware);
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
  if (m.sm_share != job.sm_share || m.sm_util != job.sm_util || m.mem_bw_util != job.mem_bw_util ||
      m.memory != job.memory || m.device != device.name) {
    m.best = best_instance_rate(device, job, offered_profiles(device), params_.speed);
    m.device = device.name;
    m.sm_share = job.sm_share;
    m.sm_util = job.sm_util;
    m.mem_bw_util = job.mem_bw_util;
    m.memory = job.memory;
  }
  return m.best;
}

bool MigModel::fits_whole_gpu(const DeviceProfile& device, const JobSpec& job) const {
  if (!job.mig_profile.empty()) return false;  // a MIG request never lands on a whole GPU
  return params_.strategy != MigStrategy::kAuto || job.memory <= device.memory;
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
  return params_.strategy == MigStrategy::kAuto ? static_cast<double>(job.memory.mib()) : 0.0;
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

QueueReason MigModel::refusal(const GpuView& gpu, const JobSpec& job) const {
  const Resolved& r = resolve(gpu.device, gpu.layout);
  if (r.layout.mig_enabled) return QueueReason::kMigFit;
  if (!gpu.residents.empty()) return QueueReason::kGpus;
  return job.mig_profile.empty() ? QueueReason::kMemory : QueueReason::kMigFit;
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
    const MigProfile& profile = instance_profile_of(d, r, i);
    const MigSupply s = mig_supply(d, profile);
    rates[k] = mig_job_rate(job, d, profile, s, params_.speed);
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

}  // namespace gpumux
