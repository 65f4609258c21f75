// Reading the NVIDIA Kubernetes device plugin's configuration file, the part of it that says how
// GPUs are shared (NVIDIA/k8s-device-plugin README "Shared Access to GPUs"; its schema in
// api/config/v1/config.go, sharing.go, replicas.go and flags.go):
//
//   version: v1
//   flags:
//     migStrategy: none            # none | single | mixed
//   sharing:
//     timeSlicing:                 # or mps: (the two are mutually exclusive)
//       renameByDefault: false     # true: advertised as <name>.shared
//       failRequestsGreaterThanOne: false
//       resources:
//         - name: nvidia.com/gpu   # or nvidia.com/mig-<profile> under the mixed MIG strategy
//           replicas: 4            # shared accesses per GPU, >= 1
//
// As in the plugin: a missing `version` is v1, any other version is an error; a `timeSlicing` or
// `mps` block needs a non-empty `resources` list and each resource a `name` and `replicas`
// (>= 1); `devices` (all, a count or a list of GPU indices or UUIDs) defaults to all. gpumux is
// stricter than the plugin in two ways: a key the schema does not have is an error (the plugin
// ignores it), and giving both timeSlicing and mps resources is an error (the plugin silently
// uses mps). Top-level `resources` and `imex`, and flags other than migStrategy, are accepted
// and ignored: they do not change how GPUs are shared. Every error is an InputError naming
// "file:line:column" (yaml-cpp's mark), the field and what was expected, as in
// models/mig/mig_parted.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpumux {

enum class PluginSharing : std::uint8_t { kNone, kTimeSlicing, kMps };

// "none", "time-slicing", "mps": the plugin's own names (its nvidia.com/gpu.sharing-strategy
// label).
std::string_view plugin_sharing_name(PluginSharing sharing);

struct PluginResource {
  std::string name;         // e.g. "nvidia.com/gpu", "nvidia.com/mig-3g.40gb"
  std::string rename;       // empty when not renamed
  bool all_devices = true;  // false: `devices` names a count or a list (only some GPUs shared)
  int replicas = 1;         // >= 1
  std::string where;        // "file:line:column" of the resource
};

struct DevicePluginConfig {
  std::string file;
  std::string mig_strategy = "none";  // none | single | mixed (the plugin's default: none)
  std::string mig_strategy_where;     // where flags.migStrategy was given (else the file)
  PluginSharing sharing = PluginSharing::kNone;
  bool rename_by_default = false;
  // As given; absent means the plugin's default: false for timeSlicing, true for mps
  // (api/config/v1/config.go keeps MPS requests of more than one replica failing).
  std::optional<bool> fail_requests_greater_than_one;
  std::vector<PluginResource> resources;  // of the sharing block in use; empty for kNone
  std::string sharing_where;              // "file:line:column" of that block (else the file)

  // Whether pods asking for more than one replica fail (the effective flag).
  bool fails_multi_replica_requests() const {
    return fail_requests_greater_than_one.value_or(sharing == PluginSharing::kMps);
  }
};

// Parses device plugin configuration YAML `text` read from `file`. Throws InputError as above.
DevicePluginConfig parse_device_plugin_config(std::string_view text, const std::string& file);
// Reads the file at `path`; a missing file is an InputError naming it.
DevicePluginConfig read_device_plugin_config(const std::string& path);

}  // namespace gpumux
