// MIG layouts: which GPU instances (profile + first memory slice) one device is split into, and
// the placement rules a layout must obey (docs/gpu-facts.md "MIG", NVIDIA MIG User Guide).
//
// A layout is valid on a device iff
// - every profile exists in the device's MIG table;
// - every start offset is one of the profile's allowed start offsets;
// - the memory-slice ranges [start, start + memory_slices) lie within the device's memory slices
//   and do not overlap;
// - no profile appears more than its max_count;
// - the summed compute slices do not exceed the device's compute slices;
// - at most one "+me" (media extensions) instance exists.
// The rules are the device table's data: nothing here hard-codes a GPU.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/device.h"

namespace gpumux {

// One GPU instance of a layout.
struct MigInstanceSpec {
  std::string profile;  // a name of the device's MIG table, e.g. "3g.40gb"
  int start = 0;        // first memory slice

  bool operator==(const MigInstanceSpec&) const = default;
};

// The device's profile called `name`, or nullptr.
const MigProfile* find_mig_profile(const DeviceProfile& device, std::string_view name);
// Its index in device.mig_profiles, or -1.
int mig_profile_index(const DeviceProfile& device, std::string_view name);

// True for media-extension profiles ("1g.10gb+me"): at most one per GPU.
bool is_media_extension_profile(std::string_view name);

// Why `layout` is invalid on `device` (one sentence naming the first broken rule, e.g.
// "3g.20gb may not start at memory slice 2 (allowed: 0, 4)"), or nullopt when it is valid.
// A device without MIG support has no valid non-empty layout; the empty layout is valid.
std::optional<std::string> layout_error(const DeviceProfile& device,
                                        std::span<const MigInstanceSpec> layout);
inline bool is_valid_layout(const DeviceProfile& device, std::span<const MigInstanceSpec> layout) {
  return !layout_error(device, layout).has_value();
}

// What one GPU is: whole (MIG off: one job, any gang) or split into these instances.
struct MigDeviceLayout {
  bool mig_enabled = false;
  std::vector<MigInstanceSpec> instances;  // valid on the device; may be empty (hosts nothing)

  bool operator==(const MigDeviceLayout&) const = default;
};

// The result of placing a multiset of profiles on one device.
struct MigPlacement {
  bool ok = false;
  std::vector<MigInstanceSpec> instances;  // when ok: a valid layout, in placement order
  std::string error;                       // when !ok: why no valid layout exists
};

// Finds start offsets for `profiles` (a multiset: order does not matter, repeats allowed) so
// that the layout is valid, or says why none exists. Deterministic: profiles are placed largest
// first (memory slices, then compute slices, descending; then by name), each at the lowest free
// allowed offset, backtracking when a later profile finds no room, so a valid layout is found
// whenever one exists. The returned instances are in that placement order.
MigPlacement place_profiles(const DeviceProfile& device, std::span<const std::string> profiles);
inline MigPlacement place_profiles(const DeviceProfile& device,
                                   const std::vector<std::string>& profiles) {
  return place_profiles(device, std::span<const std::string>(profiles));
}

}  // namespace gpumux
