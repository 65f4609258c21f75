// Deployable answers: the files an operator applies to run a cluster the way gpumux simulated one
// answer of a plan, and the way back from those files to a gpumux model (docs/deploying.md).
//
// Two kinds of file, both YAML:
// - the NVIDIA Kubernetes device plugin config, `device-plugin-<device>.yaml`, one per device type
//   of the answer (NVIDIA/k8s-device-plugin README "Shared Access to GPUs"; schema in
//   api/config/v1/: config.go `version`, flags.go `flags.migStrategy`, sharing.go
//   `sharing.timeSlicing` / `sharing.mps`, replicas.go `resources[].name/replicas`). Written for
//   every model it can express: exclusive (no sharing: every nvidia.com/gpu a whole GPU, the
//   plugin's default, written so that reading it back gives `exclusive` and applying it undoes
//   an earlier sharing config), timeslice (sharing.timeSlicing), mps (sharing.mps), mig and the
//   hybrids (flags.migStrategy mixed or single; mig+timeslice also time-slices the MIG devices).
//   `renameByDefault: false` keeps the resource name nvidia.com/gpu that pods already ask for;
//   time-slicing writes `failRequestsGreaterThanOne: false` (the plugin's default), MPS leaves the
//   plugin's default (true).
// - a mig-parted config, `mig-parted.yaml` (NVIDIA/mig-parted api/spec/v1/spec.go), for the MIG
//   models: one config per MIG-capable device type, named by mig_config_name (per candidate
//   layout when the model repartitions). models/mig/mig_parted.h reads it back.
//
// Replicas. Where the params fix a count (`admission: replicas`) it is `replicas`. Otherwise the
// count is the most jobs the model ever admits to one GPU, read from the model's own declared
// parameters: timeslice `max_jobs_per_gpu` under memory admission (default 8); mps the device's
// MPS client limit (DeviceProfile::mps_client_limit, the model's fallback 48 when 0) under peak or
// average admission; the hybrids the same of their inner model, per instance.
//
// Nothing is dropped silently: every setting of the params the plugin or mig-parted cannot
// express, and every way the deployed system behaves differently from the simulated one (memory
// admission, per-replica memory and compute limits under MPS, multi-GPU requests, the `auto` MIG
// strategy, repartitioning), is one line "# gpumux simulated ...; the device plugin has no
// equivalent ..." in the file concerned and one sentence in DeployFiles::notes.
//
// `fractional` has no NVIDIA equivalent (fractional GPUs need a third-party scheduler): no file,
// one note.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/plan/device_plugin_config.h"
#include "models/mig/mig_parted.h"
#include "sim/core/device.h"

namespace gpumux {

// One node group of the answer.
struct DeployGroup {
  std::string name;       // the group's name (named in comments only)
  DeviceProfile device;   // its device's profile (a scenario-defined device included)
  int gpus_per_node = 0;  // >= 1
  int nodes = 0;          // >= 0: the answer's nodes of this group
};

// One answer: a model and the cluster it needs.
struct DeployAnswer {
  std::string model;      // a sharing model of `gpumux models` (exclusive, timeslice, mps, ...)
  nlohmann::json params;  // its sharing.params as the answer ran (paths opened as given)
  std::vector<DeployGroup> groups;  // non-empty
};

struct DeployFile {
  std::string name;  // a file name without folders, e.g. "device-plugin-A100-80GB.yaml"
  std::string text;
};

struct DeployFiles {
  std::vector<DeployFile> files;   // in a fixed order: device plugin files by group, mig-parted
  std::vector<std::string> notes;  // what the files do not reproduce, one sentence each
};

// The files for `answer`. Builds the model from its params (so that replicas and layouts are the
// model's own); throws InputError as the model does for bad params or a layout invalid on a
// group's device, and for an empty group list.
DeployFiles deploy_files(const DeployAnswer& answer);

// The name of the device plugin file of `device` ("device-plugin-<device>.yaml", characters
// other than letters, digits, '.', '_' and '-' as '-').
std::string device_plugin_file_name(const DeviceProfile& device);
// The name of that config in the plugin's ConfigMap (helm `config.map.<name>`, node label
// nvidia.com/device-plugin.config=<name>): "gpumux-<device>", characters as above.
std::string plugin_config_name(const DeviceProfile& device);
inline constexpr const char* kMigPartedFileName = "mig-parted.yaml";
// The mig-parted config of `device` in that file: "gpumux-<device>", or "gpumux-<device>-<k>"
// for candidate layout k when the model repartitions (candidate 0 is the layout GPUs start in).
std::string mig_config_name(const DeviceProfile& device, int candidate = -1);

// The way back: the gpumux model (name and sharing.params) that simulates a node configured with
// `plugin` and, when its GPUs are in MIG mode, the mig-parted config `mig_parted` (nullptr:
// none). timeSlicing -> timeslice with replicas admission; mps -> mps with replicas admission;
// no sharing -> exclusive; with a mig-parted config: mig (strategy = migStrategy) or
// mig+timeslice (inner replicas admission). The layout is {"layout": [profiles]} when the config
// gives every GPU the same MIG layout, else {"mig_parted": file, "config": name}. `notes` say what
// the model does differently (e.g. pods asking for several replicas fail). Throws InputError (at
// the file's line) for what no gpumux model simulates: replicas of only some GPUs, different
// replica counts per resource, an unknown resource, MPS on MIG devices, or a mig-parted config
// with migStrategy none.
struct DeployedModel {
  std::string model;
  nlohmann::json params;
  std::vector<std::string> notes;
};
DeployedModel model_from_deploy(const DevicePluginConfig& plugin,
                                const MigPartedConfig* mig_parted);

}  // namespace gpumux
