#include "analysis/plan/device_plugin_config.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/base/yaml_reader.h"

namespace gpumux {

namespace {

std::string joined(std::initializer_list<std::string_view> names) {
  std::string s;
  for (std::string_view n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

bool one_of(const std::string& key, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (key == n) return true;
  }
  return false;
}

PluginResource read_resource(const YamlReader& r, const YAML::Node& node,
                             const std::string& field) {
  r.expect_map(node, field);
  PluginResource out;
  out.where = r.where(node);
  bool has_name = false, has_replicas = false;
  std::set<std::string> keys;
  for (const auto& kv : node) {
    const YAML::Node k = kv.first, v = kv.second;
    const std::string key = r.scalar(k, field);
    const std::string f = field + "." + key;
    r.unique_key(keys, k, key, f);
    if (key == "name") {
      has_name = true;
      out.name = r.scalar(v, f);
      if (out.name.empty()) r.fail(v, f, "expected a resource name, e.g. nvidia.com/gpu");
    } else if (key == "rename") {
      out.rename = r.scalar(v, f);
    } else if (key == "replicas") {
      has_replicas = true;
      out.replicas = r.integer(v, f, 1, 1'000'000);
    } else if (key == "devices") {
      // The plugin's union: "all", a count of GPUs, or a list of indices / UUIDs.
      if (v.IsScalar() && v.Scalar() == "all") {
        out.all_devices = true;
      } else if (v.IsScalar()) {
        r.integer(v, f, 1, 1'000'000);
        out.all_devices = false;
      } else if (v.IsSequence()) {
        for (const YAML::Node& d : v) r.scalar(d, f);
        out.all_devices = false;
      } else {
        r.fail(v, f,
               "expected 'all', a count of GPUs or a list of GPU indices, got " + yaml_describe(v));
      }
    } else {
      r.fail(k, f,
             "unexpected field (valid: " + joined({"name", "rename", "devices", "replicas"}) + ")");
    }
  }
  if (!has_name) r.fail(node, field + ".name", "missing required field");
  if (!has_replicas) r.fail(node, field + ".replicas", "missing required field");
  return out;
}

struct SharingBlock {
  bool given = false;
  bool rename_by_default = false;
  std::optional<bool> fail_requests;
  std::vector<PluginResource> resources;
  std::string where;
};

SharingBlock read_sharing_block(const YamlReader& r, const YAML::Node& node,
                                const std::string& field) {
  SharingBlock out;
  out.given = true;
  out.where = r.where(node);
  r.expect_map(node, field);
  bool has_resources = false;
  std::set<std::string> keys;
  for (const auto& kv : node) {
    const YAML::Node k = kv.first, v = kv.second;
    const std::string key = r.scalar(k, field);
    const std::string f = field + "." + key;
    r.unique_key(keys, k, key, f);
    if (key == "renameByDefault") {
      out.rename_by_default = r.boolean(v, f);
    } else if (key == "failRequestsGreaterThanOne") {
      out.fail_requests = r.boolean(v, f);
    } else if (key == "strategy") {
      // TimeSlicing.strategy of older releases (replicas.go): only the unspecified one exists.
      if (!r.scalar(v, f).empty())
        r.fail(v, f, "unknown time-slicing strategy " + yaml_describe(v));
    } else if (key == "resources") {
      has_resources = true;
      if (!v.IsSequence() || v.size() == 0) {
        r.fail(v.IsNull() ? k : v, f,
               "expected a non-empty list of resources, got " + yaml_describe(v));
      }
      for (std::size_t i = 0; i < v.size(); ++i) {
        out.resources.push_back(read_resource(r, v[i], f + "[" + std::to_string(i) + "]"));
      }
    } else {
      r.fail(k, f,
             "unexpected field (valid: " +
                 joined({"renameByDefault", "failRequestsGreaterThanOne", "resources"}) + ")");
    }
  }
  if (!has_resources) r.fail(node, field + ".resources", "missing required field");
  return out;
}

}  // namespace

std::string_view plugin_sharing_name(PluginSharing sharing) {
  switch (sharing) {
    case PluginSharing::kTimeSlicing:
      return "time-slicing";
    case PluginSharing::kMps:
      return "mps";
    case PluginSharing::kNone:
      break;
  }
  return "none";
}

DevicePluginConfig parse_device_plugin_config(std::string_view text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw InputError(yaml_where(file, e.mark), "", "invalid YAML: " + e.msg);
  }
  // Only the sharing blocks are walked (a few nodes), so visit() is never called: ignored
  // blocks are never visited, and no alias-expansion bound is needed.
  const YamlReader r(file);
  if (!root.IsMap()) {
    throw InputError(yaml_where(file, root.Mark()), "",
                     "expected a device plugin config (a mapping with version, flags, sharing), "
                     "got " +
                         yaml_describe(root));
  }
  DevicePluginConfig out;
  out.file = file;
  out.mig_strategy_where = file;
  out.sharing_where = file;
  SharingBlock time_slicing, mps;
  std::set<std::string> keys;  // yaml-cpp keeps both entries of a repeated key
  for (const auto& kv : root) {
    const YAML::Node k = kv.first, v = kv.second;
    const std::string key = r.scalar(k, "");
    r.unique_key(keys, k, key, key);
    if (key == "version") {
      const std::string version = r.scalar(v, "version");
      if (version != "v1") r.fail(v, "version", "expected v1, got '" + version + "'");
    } else if (key == "flags") {
      if (v.IsNull()) continue;
      r.expect_map(v, "flags");
      std::set<std::string> flags;
      for (const auto& fkv : v) {
        const std::string flag = r.scalar(fkv.first, "flags");
        r.unique_key(flags, fkv.first, flag, "flags." + flag);
        if (flag == "migStrategy") {
          const std::string s = r.scalar(fkv.second, "flags.migStrategy");
          if (!one_of(s, {"none", "single", "mixed"})) {
            r.fail(fkv.second, "flags.migStrategy",
                   "expected none, single or mixed, got '" + s + "'");
          }
          out.mig_strategy = s;
          out.mig_strategy_where = r.where(fkv.second);
        } else if (!one_of(flag,
                           {"failOnInitError", "restartOnDeviceUnhealthy", "nvidiaDriverRoot",
                            "nvidiaDevRoot", "gdsEnabled", "mofedEnabled", "useNodeFeatureAPI",
                            "deviceDiscoveryStrategy", "plugin", "gfd"})) {
          r.fail(fkv.first, "flags." + flag,
                 "unexpected field (valid: migStrategy, failOnInitError, "
                 "restartOnDeviceUnhealthy, nvidiaDriverRoot, nvidiaDevRoot, gdsEnabled, "
                 "mofedEnabled, useNodeFeatureAPI, deviceDiscoveryStrategy, plugin, gfd)");
        }
      }
    } else if (key == "sharing") {
      if (v.IsNull()) continue;
      r.expect_map(v, "sharing");
      std::set<std::string> kinds;
      for (const auto& skv : v) {
        const std::string kind = r.scalar(skv.first, "sharing");
        r.unique_key(kinds, skv.first, kind, "sharing." + kind);
        if (kind == "timeSlicing") {
          time_slicing = read_sharing_block(r, skv.second, "sharing.timeSlicing");
        } else if (kind == "mps") {
          mps = read_sharing_block(r, skv.second, "sharing.mps");
        } else {
          r.fail(skv.first, "sharing." + kind, "unexpected field (valid: timeSlicing, mps)");
        }
      }
    } else if (key == "resources" || key == "imex") {
      // Resource renaming (disabled by the plugin itself) and IMEX channels: not about sharing.
    } else {
      r.fail(k, key, "unexpected field (valid: version, flags, sharing, resources, imex)");
    }
  }
  if (time_slicing.given && mps.given) {
    throw InputError(mps.where, "sharing",
                     "timeSlicing and mps are mutually exclusive (k8s-device-plugin README, "
                     "\"Shared Access to GPUs\"); give one");
  }
  const SharingBlock* block = time_slicing.given ? &time_slicing : mps.given ? &mps : nullptr;
  if (block != nullptr) {
    out.sharing = time_slicing.given ? PluginSharing::kTimeSlicing : PluginSharing::kMps;
    out.rename_by_default = block->rename_by_default;
    out.fail_requests_greater_than_one = block->fail_requests;
    out.resources = block->resources;
    out.sharing_where = block->where;
  }
  return out;
}

DevicePluginConfig read_device_plugin_config(const std::string& path) {
  const std::string text = read_text_file(path, "the device plugin config (a YAML file)");
  return parse_device_plugin_config(text, path);
}

}  // namespace gpumux
