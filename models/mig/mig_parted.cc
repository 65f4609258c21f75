#include "models/mig/mig_parted.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/base/yaml_reader.h"

namespace gpumux {

namespace {

// Nodes a file may visit once its aliases are followed. yaml-cpp shares an aliased node, so a
// small file of aliases of aliases ("billion laughs") stands for exponentially many nodes; every
// config is checked, so such a file would otherwise be walked node by node for minutes. Stock
// mig-parted files visit a few thousand.
constexpr std::size_t kMaxVisitedNodes = 100'000;

// mig-parted's accepted profile form: [Nc.]Ng.Mgb with optional attributes (+me, +gfx, -me...),
// i.e. ^([0-9]+c\.)?[0-9]+g\.[0-9]+gb([+-][a-z]+)*$, matched by hand (linear, no regex engine).
bool well_formed_profile(const std::string& name) {
  std::size_t i = 0;
  const std::size_t n = name.size();
  auto digits = [&] {
    const std::size_t from = i;
    while (i < n && name[i] >= '0' && name[i] <= '9') ++i;
    return i > from;
  };
  auto literal = [&](std::string_view text) {
    if (name.compare(i, text.size(), text) != 0) return false;
    i += text.size();
    return true;
  };
  if (!digits()) return false;
  if (i < n && name[i] == 'c') {  // the optional compute-instance prefix "Nc."
    ++i;
    if (!literal(".") || !digits()) return false;
  }
  if (!literal("g.") || !digits() || !literal("gb")) return false;
  while (i < n) {
    if (name[i] != '+' && name[i] != '-') return false;
    const std::size_t from = ++i;
    while (i < n && name[i] >= 'a' && name[i] <= 'z') ++i;
    if (i == from) return false;
  }
  return true;
}

MigPartedEntry read_entry(const YamlReader& r, const YAML::Node& node, const std::string& field) {
  r.visit(node, field);
  r.expect_map(node, field);
  MigPartedEntry e;
  e.where = r.where(node);
  e.mig_devices_where = e.where;
  bool has_devices = false, has_enabled = false, has_mig_devices = false;
  YAML::Node mig_devices_node;
  std::set<std::string> keys;
  for (const auto& kv : node) {
    const YAML::Node k = kv.first, v = kv.second;
    const std::string key = r.scalar(k, field);
    const std::string f = field + "." + key;
    r.unique_key(keys, k, key, f);
    r.visit(v, f);
    if (key == "devices") {
      has_devices = true;
      if (v.IsScalar()) {
        if (v.Scalar() != "all")
          r.fail(v, f, "expected 'all' or a list of GPU indices, got " + yaml_describe(v));
        e.all_devices = true;
      } else if (v.IsSequence()) {
        // A node has at most 64 GPUs (cluster.node_groups); the bound also keeps the table of
        // per-index layouts small. Indices beyond the cluster's nodes fail in check_cluster.
        for (const YAML::Node& i : v) {
          r.visit(i, f);
          e.devices.push_back(r.integer(i, f, 0, 63));
        }
      } else {
        r.fail(v, f, "expected 'all' or a list of GPU indices, got " + yaml_describe(v));
      }
    } else if (key == "device-filter") {
      if (v.IsScalar()) {
        e.device_filter.push_back(v.Scalar());
      } else if (v.IsSequence()) {
        for (const YAML::Node& s : v) {
          r.visit(s, f);
          e.device_filter.push_back(r.scalar(s, f));
        }
      } else {
        r.fail(v, f, "expected a device id or a list of them, got " + yaml_describe(v));
      }
    } else if (key == "mig-enabled") {
      has_enabled = true;
      e.mig_enabled = r.boolean(v, f);
    } else if (key == "mig-devices") {
      has_mig_devices = true;
      mig_devices_node = v;
      e.mig_devices_where = r.where(v);
      if (v.IsNull()) continue;
      r.expect_map(v, f);
      std::set<std::string> profiles;  // a profile given twice was once summed
      for (const auto& d : v) {
        const YAML::Node dk = d.first, dv = d.second;
        r.visit(dv, f);
        const std::string name = r.scalar(dk, f);
        r.unique_key(profiles, dk, name, f + "." + name);
        if (!well_formed_profile(name)) {
          r.fail(dk, f,
                 "'" + name +
                     "' is not a MIG profile name (expected e.g. 1g.10gb, 3g.40gb, 1g.10gb+me)");
        }
        e.mig_devices.emplace_back(name, r.integer(dv, f + "." + name, 0));
      }
    } else {
      r.fail(k, f, "unexpected field (valid: devices, device-filter, mig-enabled, mig-devices)");
    }
  }
  if (!has_devices) r.fail(node, field + ".devices", "missing required field");
  if (!has_enabled) r.fail(node, field + ".mig-enabled", "missing required field");
  if (e.mig_enabled && !has_mig_devices) {
    r.fail(node, field + ".mig-devices", "required when mig-enabled is true");
  }
  if (!e.mig_enabled) {
    for (const auto& [name, count] : e.mig_devices) {
      if (count > 0)
        r.fail(mig_devices_node, field + ".mig-devices",
               "MIG devices given while mig-enabled is false");
    }
  }
  return e;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string entry_profiles(const MigPartedEntry& e) {
  std::string s;
  for (const auto& [name, count] : e.mig_devices) {
    s += (s.empty() ? "" : ", ") + name + ": " + std::to_string(count);
  }
  return "{" + s + "}";
}

}  // namespace

MigPartedConfig parse_mig_parted(std::string_view text, const std::string& file,
                                 std::string_view config) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw InputError(yaml_where(file, e.mark), "", "invalid YAML: " + e.msg);
  }
  const YamlReader r(file, kMaxVisitedNodes, "a mig-parted file needs a few thousand");
  if (!root.IsMap()) {
    throw InputError(yaml_where(file, root.Mark()), "",
                     "expected a mig-parted config (a mapping with version and mig-configs), got " +
                         yaml_describe(root));
  }
  YAML::Node configs;
  bool has_version = false, has_configs = false;
  std::set<std::string> keys;
  for (const auto& kv : root) {
    const YAML::Node k = kv.first, v = kv.second;
    const std::string key = r.scalar(k, "");
    r.unique_key(keys, k, key, key);
    if (key == "version") {
      has_version = true;
      const std::string version = r.scalar(v, "version");
      if (version != "v1") r.fail(v, "version", "expected v1, got '" + version + "'");
    } else if (key == "mig-configs") {
      configs = v;
      has_configs = true;
    } else {
      r.fail(k, key, "unexpected field (valid: version, mig-configs)");
    }
  }
  if (!has_version) r.fail(root, "version", "missing required field");
  if (!has_configs) r.fail(root, "mig-configs", "missing required field");
  r.expect_map(configs, "mig-configs");
  if (configs.size() == 0) r.fail(configs, "mig-configs", "at least one config is required");

  MigPartedConfig out;
  out.file = file;
  std::string names;
  bool found = false;
  std::set<std::string> config_names;  // a second config of one name once silently won
  for (const auto& kv : configs) {
    const YAML::Node k = kv.first, list = kv.second;
    const std::string name = r.scalar(k, "mig-configs");
    r.unique_key(config_names, k, name, "mig-configs." + name);
    r.visit(list, "mig-configs." + name);
    names += (names.empty() ? "" : ", ") + name;
    const std::string field = "mig-configs." + name;
    if (!list.IsSequence() || list.size() == 0) {
      r.fail(list.IsNull() ? k : list, field,
             "expected a non-empty list of entries, got " + yaml_describe(list));
    }
    // Every config is checked, not only the selected one: a broken file fails as a whole.
    std::vector<MigPartedEntry> entries;
    for (std::size_t i = 0; i < list.size(); ++i) {
      entries.push_back(read_entry(r, list[i], field + "[" + std::to_string(i) + "]"));
    }
    if (name == config) {
      found = true;
      out.name = name;
      out.entries = std::move(entries);
    }
  }
  if (!found) {
    throw InputError(file, "mig-configs",
                     "no config named '" + std::string(config) + "' (the file has: " + names + ")");
  }
  return out;
}

MigPartedConfig read_mig_parted(const std::string& path, std::string_view config) {
  const std::string text = read_text_file(path, "the mig-parted file (a YAML file)");
  return parse_mig_parted(text, path, config);
}

namespace {

// PCI device ids of mig-parted's stock config-default.yaml (its comments name the GPUs), mapped
// to the built-in device each belongs to. Transcribed from NVIDIA/mig-parted's
// deployments/systemd/config-default.yaml (all-balanced). Ids the file lists without naming
// which GPU each is (0x232410DE), and GPUs without a built-in device (GB200, GH200, H100-96GB,
// H20), are left out: a filter naming them falls back to the layout test below.
struct PciId {
  const char* id;
  const char* device;
};
constexpr PciId kPciIds[] = {
    {"0x20b010de", "A100-40GB"},  {"0x20b110de", "A100-40GB"},
    {"0x20f110de", "A100-40GB"},  {"0x20f610de", "A100-40GB"},  // A800-40GB
    {"0x20b210de", "A100-80GB"},  {"0x20b510de", "A100-80GB"},
    {"0x20f310de", "A100-80GB"},  {"0x20f510de", "A100-80GB"},  // A800-80GB
    {"0x233010de", "H100-80GB"},  {"0x233110de", "H100-80GB"},
    {"0x232210de", "H100-80GB"},                                 // H800-80GB
    {"0x232110de", "H100-94GB"},  {"0x233a10de", "H100-94GB"},   // H100 NVL, H800 NVL
    {"0x233510de", "H200-141GB"}, {"0x233b10de", "H200-141GB"},  // H200, H200 NVL
    {"0x290110de", "B200-180GB"}, {"0x20b710de", "A30-24GB"},
};

}  // namespace

std::vector<std::string> pci_device_ids(const DeviceProfile& device) {
  std::vector<std::string> out;
  const std::string name = lower(device.name);
  for (const PciId& p : kPciIds) {
    if (lower(p.device) == name) out.emplace_back(p.id);
  }
  return out;
}

bool device_filter_matches(const MigPartedEntry& entry, const DeviceProfile& device) {
  if (entry.device_filter.empty()) return true;
  const std::string name = lower(device.name);
  bool unknown = false;
  for (const std::string& f : entry.device_filter) {
    const std::string id = lower(f);
    if (id == name) return true;
    const auto* known = std::find_if(std::begin(kPciIds), std::end(kPciIds),
                                     [&](const PciId& p) { return id == p.id; });
    if (known == std::end(kPciIds)) {
      unknown = true;
    } else if (lower(known->device) == name) {
      return true;
    }
  }
  // An id gpumux does not know: the entry applies when its MIG devices make a valid layout here.
  if (!unknown || entry.mig_devices.empty()) return false;
  std::vector<std::string> profiles;
  for (const auto& [profile, count] : entry.mig_devices) {
    profiles.insert(profiles.end(), static_cast<std::size_t>(count), profile);
  }
  return place_profiles(device, profiles).ok;
}

const MigPartedEntry* mig_parted_entry_for(const MigPartedConfig& config,
                                           const DeviceProfile& device, int index) {
  for (const MigPartedEntry& e : config.entries) {
    const bool covers =
        e.all_devices || std::find(e.devices.begin(), e.devices.end(), index) != e.devices.end();
    if (covers && device_filter_matches(e, device)) return &e;
  }
  return nullptr;
}

namespace {

MigDeviceLayout entry_layout(const MigPartedConfig& config, const MigPartedEntry* e,
                             const DeviceProfile& device) {
  MigDeviceLayout out;
  if (e == nullptr || !e->mig_enabled) return out;
  const std::string field = "mig-configs." + config.name + ".mig-devices";
  if (!device.supports_mig()) {
    throw InputError(e->where, field,
                     "MIG enabled on " + device.name + ", which does not support MIG");
  }
  std::vector<std::string> profiles;
  for (const auto& [name, count] : e->mig_devices) {
    profiles.insert(profiles.end(), static_cast<std::size_t>(count), name);
  }
  const MigPlacement p = place_profiles(device, profiles);
  if (!p.ok) {
    throw InputError(e->mig_devices_where, field,
                     entry_profiles(*e) + " is not a valid layout: " + p.error);
  }
  out.mig_enabled = true;
  out.instances = p.instances;
  return out;
}

}  // namespace

std::vector<MigDeviceLayout> mig_parted_layouts(const MigPartedConfig& config,
                                                const DeviceProfile& device, int gpus_per_node) {
  std::vector<MigDeviceLayout> out;
  for (int i = 0; i < gpus_per_node; ++i) {
    out.push_back(entry_layout(config, mig_parted_entry_for(config, device, i), device));
  }
  return out;
}

MigPartedIndexLayouts mig_parted_index_layouts(const MigPartedConfig& config,
                                               const DeviceProfile& device) {
  // Indices 0..n-1 are those up to the highest an entry names; index n stands for the GPUs only
  // `devices: all` entries reach (or none). Without a `devices: all` entry nodes are taken to
  // have n GPUs, so index n is left out unless no entry names an index at all.
  int n = 0;
  bool all = false;
  for (const MigPartedEntry& e : config.entries) {
    if (!device_filter_matches(e, device)) continue;
    all = all || e.all_devices;
    for (int i : e.devices) n = std::max(n, i + 1);
  }
  const int count = all || n == 0 ? n + 1 : n;
  const std::vector<MigDeviceLayout> layouts = mig_parted_layouts(config, device, count);
  MigPartedIndexLayouts out;
  for (const MigDeviceLayout& l : layouts) {
    const auto it = std::find(out.distinct.begin(), out.distinct.end(), l);
    out.by_index.push_back(static_cast<int>(it - out.distinct.begin()));
    if (it == out.distinct.end()) out.distinct.push_back(l);
  }
  return out;
}

MigDeviceLayout mig_parted_uniform_layout(const MigPartedConfig& config,
                                          const DeviceProfile& device) {
  const MigPartedIndexLayouts l = mig_parted_index_layouts(config, device);
  for (std::size_t i = 1; i < l.by_index.size(); ++i) {
    if (l.by_index[i] != l.by_index[0]) {
      throw InputError(config.file, "mig-configs." + config.name,
                       "GPU " + std::to_string(i) + " of a " + device.name +
                           " node gets a different layout than GPU 0 (or none); this needs one "
                           "layout for every GPU of the device type");
    }
  }
  return l.distinct.front();
}

}  // namespace gpumux
