// Reading NVIDIA mig-parted configuration files, the format operators already keep
// (NVIDIA/mig-parted api/spec/v1/spec.go; docs/gpu-facts.md "MIG"):
//
//   version: v1
//   mig-configs:
//     all-balanced:
//       - devices: all                # or a list of GPU indices: [0, 1]
//         device-filter: "0x20B010DE" # optional: PCI device id(s) the entry is limited to
//         mig-enabled: true
//         mig-devices: {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}
//
// As in mig-parted: `version` must be "v1"; `mig-configs` needs at least one config and each
// config at least one entry; `devices` and `mig-enabled` are required; `mig-devices` is required
// when MIG is enabled and must be empty when it is not; any other key is an error. Every error is
// an InputError naming "file:line:column" (from yaml-cpp's mark), the field and what was
// expected. Profile names are checked for their form here and against a device's table when a
// layout is resolved for it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/mig/layout.h"
#include "sim/core/device.h"

namespace gpumux {

struct MigPartedEntry {
  bool all_devices = false;
  std::vector<int> devices;                // GPU indices, when !all_devices
  std::vector<std::string> device_filter;  // empty: any device type
  bool mig_enabled = false;
  std::vector<std::pair<std::string, int>> mig_devices;  // profile -> count, in file order
  std::string where;                                     // "file:line:column" of the entry
  std::string mig_devices_where;  // "file:line:column" of its mig-devices (or of the entry)
};

struct MigPartedConfig {
  std::string file;
  std::string name;  // the selected config
  std::vector<MigPartedEntry> entries;
};

// Parses mig-parted YAML `text` read from `file` and returns the config called `config`.
// Throws InputError (bad YAML, bad structure, bad profile name, unknown config, listing the
// config names the file has).
MigPartedConfig parse_mig_parted(std::string_view text, const std::string& file,
                                 std::string_view config);
// Reads the file at `path`; a missing file is an InputError naming it.
MigPartedConfig read_mig_parted(const std::string& path, std::string_view config);

// Whether `entry` applies to GPUs of type `device` as far as its device-filter goes. A filter
// string matches when it equals the device name (case-insensitive, a gpumux extension) or is a
// PCI device id that mig-parted's stock config gives for that device (A100-40GB, A100-80GB,
// H100-80GB, H100-94GB, H200-141GB, B200-180GB, A30-24GB; the table is in mig_parted.cc). For an id
// gpumux does not know, the entry applies when its mig-devices form a valid layout on the device
// (stock files give each GPU family its own profiles). An entry without a filter applies to every
// device.
bool device_filter_matches(const MigPartedEntry& entry, const DeviceProfile& device);

// The PCI device ids mig-parted's stock config gives `device` (lower case, "0x233010de"), in
// table order; empty for a device the table does not know.
std::vector<std::string> pci_device_ids(const DeviceProfile& device);

// The entry that configures GPU `index` of a node of `device` GPUs: the first in file order whose
// devices include the index and whose filter matches; nullptr when none does.
const MigPartedEntry* mig_parted_entry_for(const MigPartedConfig& config,
                                           const DeviceProfile& device, int index);

// The layout of each GPU index 0..gpus_per_node-1 of `device`: MIG off when no entry applies or
// the entry disables it, else the entry's mig-devices placed by place_profiles. Throws InputError
// at the entry's mig-devices when the profiles do not exist on the device or admit no valid
// placement, or when MIG is enabled on a device without MIG support.
std::vector<MigDeviceLayout> mig_parted_layouts(const MigPartedConfig& config,
                                                const DeviceProfile& device, int gpus_per_node);

// The layouts the config gives the GPUs of `device`, by index in the node: `distinct` lists each
// different layout once (in order of first use), `by_index[i]` is the layout of GPU i; GPUs past
// the last index use by_index.back() (the layout `devices: all` entries give them, or MIG off).
// by_index covers 0..n-1, n = one past the highest index an entry names, plus one more when a
// `devices: all` entry applies or no entry names an index. Throws as mig_parted_layouts.
struct MigPartedIndexLayouts {
  std::vector<MigDeviceLayout> distinct;  // never empty
  std::vector<int> by_index;              // never empty; values index `distinct`
};
MigPartedIndexLayouts mig_parted_index_layouts(const MigPartedConfig& config,
                                               const DeviceProfile& device);

// One layout for every GPU of `device`: throws
// InputError naming the file and config when GPU indices get different layouts.
MigDeviceLayout mig_parted_uniform_layout(const MigPartedConfig& config,
                                          const DeviceProfile& device);

}  // namespace gpumux
