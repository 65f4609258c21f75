#include "models/mig/layout.h"

#include <algorithm>
#include <numeric>

namespace gpumux {

namespace {

std::string join_ints(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

std::string known_profiles(const DeviceProfile& device) {
  std::string s;
  for (const MigProfile& p : device.mig_profiles) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

// The rules that do not depend on offsets: existence, per-profile counts, compute slices and
// the one media-extension instance. `profile_of` gives each entry's profile name.
template <typename NameOf>
std::optional<std::string> count_error(const DeviceProfile& device, std::size_t n, NameOf name_of) {
  if (n > 0 && !device.supports_mig()) {
    return device.name + " does not support MIG";
  }
  std::vector<int> counts(device.mig_profiles.size(), 0);
  int compute = 0;
  int media = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& name = name_of(i);
    const int k = mig_profile_index(device, name);
    if (k < 0) {
      return "unknown MIG profile '" + name + "' on " + device.name +
             " (known: " + known_profiles(device) + ")";
    }
    const MigProfile& p = device.mig_profiles[static_cast<std::size_t>(k)];
    if (++counts[static_cast<std::size_t>(k)] > p.max_count) {
      return "more than " + std::to_string(p.max_count) + " instance(s) of " + p.name + " on " +
             device.name;
    }
    compute += p.compute_slices;
    if (is_media_extension_profile(name)) ++media;
  }
  if (compute > device.mig_compute_slices) {
    return "the instances need " + std::to_string(compute) + " compute slices; " + device.name +
           " has " + std::to_string(device.mig_compute_slices);
  }
  if (media > 1) return "more than one +me (media extensions) instance on " + device.name;
  return std::nullopt;
}

// Memory slices taken so far, as a bit mask (devices have at most 8 slices; 64 leaves room).
using SliceMask = std::uint64_t;

SliceMask range_mask(int start, int size) { return ((SliceMask{1} << size) - 1) << start; }

bool place_from(const DeviceProfile& device, const std::vector<const MigProfile*>& order,
                std::size_t i, SliceMask used, std::vector<int>& starts) {
  if (i == order.size()) return true;
  const MigProfile& p = *order[i];
  for (int s : p.start_offsets) {  // offsets are ascending in every table; sorted on copy anyway
    if (s < 0 || s + p.memory_slices > device.mig_memory_slices) continue;
    const SliceMask m = range_mask(s, p.memory_slices);
    if ((used & m) != 0) continue;
    starts[i] = s;
    if (place_from(device, order, i + 1, used | m, starts)) return true;
  }
  return false;
}

}  // namespace

const MigProfile* find_mig_profile(const DeviceProfile& device, std::string_view name) {
  const int k = mig_profile_index(device, name);
  return k < 0 ? nullptr : &device.mig_profiles[static_cast<std::size_t>(k)];
}

int mig_profile_index(const DeviceProfile& device, std::string_view name) {
  for (std::size_t k = 0; k < device.mig_profiles.size(); ++k) {
    if (device.mig_profiles[k].name == name) return static_cast<int>(k);
  }
  return -1;
}

bool is_media_extension_profile(std::string_view name) {
  return name.size() >= 3 && name.substr(name.size() - 3) == "+me";
}

std::optional<std::string> layout_error(const DeviceProfile& device,
                                        std::span<const MigInstanceSpec> layout) {
  if (auto e = count_error(device, layout.size(), [&](std::size_t i) -> const std::string& {
        return layout[i].profile;
      })) {
    return e;
  }
  SliceMask used = 0;
  for (const MigInstanceSpec& inst : layout) {
    const MigProfile& p = *find_mig_profile(device, inst.profile);
    const bool allowed = std::find(p.start_offsets.begin(), p.start_offsets.end(), inst.start) !=
                         p.start_offsets.end();
    if (!allowed) {
      return p.name + " may not start at memory slice " + std::to_string(inst.start) +
             " (allowed: " + join_ints(p.start_offsets) + ")";
    }
    if (inst.start < 0 || inst.start + p.memory_slices > device.mig_memory_slices) {
      return p.name + " at memory slice " + std::to_string(inst.start) + " ends past the " +
             std::to_string(device.mig_memory_slices) + " memory slices of " + device.name;
    }
    const SliceMask m = range_mask(inst.start, p.memory_slices);
    if ((used & m) != 0) {
      return p.name + " at memory slice " + std::to_string(inst.start) +
             " overlaps another instance";
    }
    used |= m;
  }
  return std::nullopt;
}

MigPlacement place_profiles(const DeviceProfile& device, std::span<const std::string> profiles) {
  MigPlacement out;
  if (auto e = count_error(device, profiles.size(),
                           [&](std::size_t i) -> const std::string& { return profiles[i]; })) {
    out.error = *e;
    return out;
  }
  std::vector<const MigProfile*> order;
  order.reserve(profiles.size());
  for (const std::string& name : profiles) order.push_back(find_mig_profile(device, name));
  std::stable_sort(order.begin(), order.end(), [](const MigProfile* a, const MigProfile* b) {
    if (a->memory_slices != b->memory_slices) return a->memory_slices > b->memory_slices;
    if (a->compute_slices != b->compute_slices) return a->compute_slices > b->compute_slices;
    return a->name < b->name;
  });
  // Search on sorted copies of the offsets so that "lowest offset first" holds for any table.
  std::vector<MigProfile> sorted;
  sorted.reserve(order.size());
  for (const MigProfile* p : order) {
    sorted.push_back(*p);
    std::sort(sorted.back().start_offsets.begin(), sorted.back().start_offsets.end());
  }
  std::vector<const MigProfile*> search;
  search.reserve(sorted.size());
  for (const MigProfile& p : sorted) search.push_back(&p);
  std::vector<int> starts(search.size(), 0);
  if (!place_from(device, search, 0, 0, starts)) {
    std::string names;
    for (const MigProfile* p : search) names += (names.empty() ? "" : " + ") + p->name;
    out.error = "no placement of " + names + " fits the " +
                std::to_string(device.mig_memory_slices) + " memory slices of " + device.name +
                " at allowed start offsets";
    return out;
  }
  out.ok = true;
  for (std::size_t i = 0; i < search.size(); ++i) {
    out.instances.push_back({search[i]->name, starts[i]});
  }
  return out;
}

}  // namespace gpumux
