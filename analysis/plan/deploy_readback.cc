// The way back from deploy files to a model (model_from_deploy, declared in deploy_config.h):
// the sharing model whose declared capabilities (models/sharing_capabilities.h) deploy as the
// plugin's sharing strategy, with MIG instances when a mig-parted config is given.
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/plan/deploy_config.h"
#include "models/registry.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

// The profiles of `entry`, each repeated by its count, in file order.
std::vector<std::string> entry_profile_list(const MigPartedEntry& entry) {
  std::vector<std::string> out;
  for (const auto& [name, count] : entry.mig_devices) {
    for (int i = 0; i < count; ++i) out.push_back(name);
  }
  return out;
}

nlohmann::json layout_params(const MigPartedConfig& config) {
  if (config.entries.size() == 1) {
    const MigPartedEntry& e = config.entries.front();
    const std::vector<std::string> list = entry_profile_list(e);
    if (e.all_devices && e.device_filter.empty() && e.mig_enabled && !list.empty()) {
      return {{"layout", list}};
    }
  }
  return {{"mig_parted", config.file}, {"config", config.name}};
}

// The replica count every resource of `plugin` gives; InputError when they differ or a
// resource shares only some GPUs.
int common_replicas(const DevicePluginConfig& plugin) {
  const PluginResource& first = plugin.resources.front();
  for (const PluginResource& r : plugin.resources) {
    if (!r.all_devices) {
      throw InputError(r.where, "devices",
                       "replicates only some GPUs of the node; every gpumux model shares all "
                       "GPUs of a node the same way");
    }
    if (r.replicas != first.replicas) {
      throw InputError(r.where, "replicas",
                       std::to_string(r.replicas) + " replicas of " + r.name + " but " +
                           std::to_string(first.replicas) + " of " + first.name +
                           "; gpumux shares every GPU (or instance) with one replica count");
    }
  }
  return first.replicas;
}

// The model whose capabilities say it deploys as `sharing` (with MIG instances or not). Every
// sharing a plugin config can hold has one; a table without it is a bug.
std::string deployed_model(DeviceSharing sharing, bool mig_instances) {
  const SharingModelInfo* m = model_deployed_as(sharing, mig_instances);
  if (m == nullptr) throw std::logic_error("no sharing model deploys as this plugin config");
  return m->name;
}

}  // namespace

DeployedModel model_from_deploy(const DevicePluginConfig& plugin,
                                const MigPartedConfig* mig_parted) {
  DeployedModel out;
  if (mig_parted != nullptr && plugin.mig_strategy == "none") {
    throw InputError(plugin.mig_strategy_where, "flags.migStrategy",
                     "is none, so the plugin advertises no MIG device of the mig-parted config " +
                         mig_parted->file + " (" + mig_parted->name + "); use mixed or single");
  }
  for (const PluginResource& r : plugin.resources) {
    const bool gpu = r.name == "nvidia.com/gpu";
    const bool mig_device = r.name.rfind("nvidia.com/mig-", 0) == 0;
    if (!gpu && !mig_device) {
      throw InputError(r.where, "name",
                       "'" + r.name +
                           "' is not a resource gpumux models share (nvidia.com/gpu, "
                           "nvidia.com/mig-<profile>)");
    }
    if (mig_device && mig_parted == nullptr) {
      throw InputError(r.where, "name",
                       r.name + " is a MIG device: give the mig-parted config that creates it");
    }
  }
  if (plugin.sharing != PluginSharing::kNone && plugin.fails_multi_replica_requests()) {
    out.notes.push_back(
        "failRequestsGreaterThanOne is true: a pod asking for more than one replica fails, while "
        "gpumux runs a k-GPU job with one replica on each of k GPUs.");
  }
  switch (plugin.sharing) {
    case PluginSharing::kNone:
      if (mig_parted == nullptr) {
        out.model = deployed_model(DeviceSharing::kNone, false);
        out.params = nlohmann::json::object();
        if (plugin.mig_strategy != "none") {
          out.notes.push_back("migStrategy " + plugin.mig_strategy +
                              " without a mig-parted config: GPUs taken as whole GPUs.");
        }
      } else {
        out.model = deployed_model(DeviceSharing::kNone, true);
        out.params = layout_params(*mig_parted);
        out.params["strategy"] = plugin.mig_strategy;
      }
      break;
    case PluginSharing::kTimeSlicing: {
      const int n = common_replicas(plugin);
      const nlohmann::json inner = {{"admission", "replicas"}, {"replicas", n}};
      if (mig_parted == nullptr) {
        out.model = deployed_model(DeviceSharing::kTimeSlicing, false);
        out.params = inner;
      } else {
        out.model = deployed_model(DeviceSharing::kTimeSlicing, true);
        out.params = layout_params(*mig_parted);
        out.params["strategy"] = plugin.mig_strategy;
        out.params["inner"] = inner;
      }
      break;
    }
    case PluginSharing::kMps: {
      if (mig_parted != nullptr) {
        throw InputError(plugin.sharing_where, "sharing.mps",
                         "the device plugin does not support MPS on MIG devices "
                         "(k8s-device-plugin README, \"With CUDA MPS\")");
      }
      const int n = common_replicas(plugin);
      out.model = deployed_model(DeviceSharing::kMps, false);
      out.params = {{"admission", "replicas"}, {"replicas", n}};
      break;
    }
  }
  return out;
}

}  // namespace gpumux
