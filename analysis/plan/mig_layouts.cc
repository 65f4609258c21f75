#include "analysis/plan/mig_layouts.h"

#include <algorithm>
#include <memory>
#include <sstream>

#include "models/mig/layout.h"
#include "models/mig/mig_hybrid_model.h"
#include "models/mig/mig_model.h"
#include "models/registry.h"
#include "scenarios/sections/sections.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"

namespace gpumux {

namespace {

// The keys that say where a MIG model's layouts come from (models/mig/mig_params.h): a
// candidate replaces them all and keeps every other parameter (strategy, sizing, inner, ...).
constexpr const char* kLayoutKeys[] = {"layout", "mig_parted", "config", "layouts", "repartition"};

// The most instances of one profile a GPU holds (7 on every MIG device so far), with room.
constexpr std::size_t kMaxInstancesPerProfile = 8;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(trim(part));
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

nlohmann::json without_layout(const nlohmann::json& params) {
  nlohmann::json out = params.is_object() ? params : nlohmann::json::object();
  for (const char* key : kLayoutKeys) out.erase(key);
  return out;
}

// The model of `params`, its file parameters resolved against the scenario's folder as the
// scenario parser resolves them.
std::unique_ptr<SharingModel> build_model(const std::string& model, const nlohmann::json& params,
                                          const std::string& base_dir) {
  nlohmann::json p = params.is_object() ? params : nlohmann::json::object();
  for (const char* key : {"calibration", "mig_parted"}) {
    if (p.contains(key) && p[key].is_string()) {
      p[key] = scenario_sections::resolve_path(base_dir, p[key].get<std::string>());
    }
  }
  JsonObject object(p, model + " params", "");
  return make_sharing_model(model, object, "model");
}

const MigModel* mig_of(const SharingModel& model) {
  if (const auto* m = dynamic_cast<const MigModel*>(&model)) return m;
  if (const auto* h = dynamic_cast<const MigHybridModel*>(&model)) return &h->mig();
  return nullptr;
}

// Each MIG-capable device type once, with the most GPUs per node among its groups.
std::vector<PlanDevice> mig_devices(std::span<const PlanDevice> groups) {
  std::vector<PlanDevice> out;
  for (const PlanDevice& g : groups) {
    if (!g.device.supports_mig()) continue;
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const PlanDevice& d) { return d.device.name == g.device.name; });
    if (it == out.end()) {
      out.push_back(g);
    } else {
      it->gpus_per_node = std::max(it->gpus_per_node, g.gpus_per_node);
    }
  }
  return out;
}

std::vector<std::string> profile_names(const MigDeviceLayout& layout) {
  std::vector<std::string> names;
  for (const MigInstanceSpec& i : layout.instances) names.push_back(i.profile);
  return names;
}

// Profile names in words, repeats counted: "3g.40gb + 2g.20gb + 2x 1g.10gb"; "whole" for MIG off.
std::string layout_words(const nlohmann::json& profiles) {
  if (profiles.is_null()) return "whole";
  std::vector<std::string> runs;
  for (std::size_t i = 0; i < profiles.size();) {
    std::size_t j = i;
    while (j < profiles.size() && profiles[j] == profiles[i]) ++j;
    const std::string name = profiles[i].get<std::string>();
    runs.push_back(j - i > 1 ? std::to_string(j - i) + "x " + name : name);
    i = j;
  }
  return joined_profiles(runs);
}

// A device's layouts by GPU index in words: "X" when every index has the same, else runs of
// indices ("GPUs 0-3: X; GPUs 4-7 whole").
std::string device_words(const nlohmann::json& by_index) {
  std::string out;
  std::size_t from = 0;
  bool uniform = true;
  for (std::size_t i = 1; i <= by_index.size(); ++i) {
    if (i < by_index.size() && by_index[i] == by_index[from]) continue;
    uniform = uniform && from == 0 && i == by_index.size();
    const std::string gpus = "GPUs " + std::to_string(from) +
                             (i - 1 > from ? "-" + std::to_string(i - 1) : std::string());
    const nlohmann::json& l = by_index[from];
    out += (out.empty() ? "" : "; ") + gpus + (l.is_null() ? " whole" : ": " + layout_words(l));
    from = i;
  }
  if (uniform && !by_index.empty()) return layout_words(by_index[0]);
  return out;
}

// As many instances of `profile` as fit, then the room left filled with the largest profiles
// (memory slices, compute slices, then name) that still fit; media extensions left out.
std::vector<std::string> filled_layout(const DeviceProfile& device, const MigProfile& profile) {
  std::vector<std::string> names;
  for (int c = profile.max_count; c >= 1; --c) {
    names.assign(static_cast<std::size_t>(c), profile.name);
    if (place_profiles(device, names).ok) break;
    names.clear();
  }
  std::vector<const MigProfile*> by_size;
  for (const MigProfile& p : device.mig_profiles) {
    if (!is_media_extension_profile(p.name)) by_size.push_back(&p);
  }
  std::sort(by_size.begin(), by_size.end(), [](const MigProfile* a, const MigProfile* b) {
    if (a->memory_slices != b->memory_slices) return a->memory_slices > b->memory_slices;
    if (a->compute_slices != b->compute_slices) return a->compute_slices > b->compute_slices;
    return a->name < b->name;
  });
  for (bool added = !names.empty(); added;) {
    added = false;
    for (const MigProfile* p : by_size) {
      names.push_back(p->name);
      if (place_profiles(device, names).ok) {
        added = true;
        break;
      }
      names.pop_back();
    }
  }
  return profile_names({true, place_profiles(device, names).instances});
}

// `names` ([] = MIG off) on every MIG-capable GPU of the cluster.
nlohmann::json uniform_params(const nlohmann::json& rest, const std::vector<PlanDevice>& devices,
                              const std::vector<std::vector<std::string>>& per_device) {
  nlohmann::json p = rest;
  const bool whole = std::all_of(per_device.begin(), per_device.end(),
                                 [](const auto& names) { return names.empty(); });
  if (whole) {
    p["mig_parted"] = {
        {"version", "v1"},
        {"mig-configs",
         {{"whole", nlohmann::json::array({{{"devices", "all"}, {"mig-enabled", false}}})}}}};
    p["config"] = "whole";
  } else if (devices.size() == 1) {
    p["layout"] = per_device[0];
  } else {
    nlohmann::json by = nlohmann::json::object();
    for (std::size_t d = 0; d < devices.size(); ++d) {
      if (!per_device[d].empty()) by[devices[d].device.name] = per_device[d];
    }
    p["layout"] = by;
  }
  return p;
}

// `split[d]` on the first half of each node's GPUs of MIG device d, the other half whole; null
// when no device has a half to split.
nlohmann::json half_whole_params(const nlohmann::json& rest, const std::vector<PlanDevice>& devices,
                                 const std::vector<nlohmann::json>& split) {
  nlohmann::json entries = nlohmann::json::array();
  for (std::size_t d = 0; d < devices.size(); ++d) {
    const int half = devices[d].gpus_per_node / 2;
    if (half < 1 || split[d].is_null() || split[d].empty()) continue;
    nlohmann::json indices = nlohmann::json::array();
    for (int i = 0; i < half; ++i) indices.push_back(i);
    nlohmann::json counts = nlohmann::json::object();
    for (const auto& name : split[d]) counts[name.get<std::string>()] = counts.value(name, 0) + 1;
    nlohmann::json entry = {{"devices", indices}, {"mig-enabled", true}, {"mig-devices", counts}};
    if (devices.size() > 1) entry["device-filter"] = devices[d].device.name;
    entries.push_back(entry);
  }
  if (entries.empty()) return nullptr;
  entries.push_back({{"devices", "all"}, {"mig-enabled", false}});
  nlohmann::json p = rest;
  p["mig_parted"] = {{"version", "v1"}, {"mig-configs", {{"half-whole", entries}}}};
  p["config"] = "half-whole";
  return p;
}

}  // namespace

MigLayoutRequest parse_mig_layouts_option(const std::string& text) {
  MigLayoutRequest r;
  const std::string t = trim(text);
  if (t == "scenario") {
    r.mode = MigLayoutMode::kScenario;
    return r;
  }
  if (t == "generated") return r;
  r.mode = MigLayoutMode::kList;
  for (const std::string& layout : split(t, ';')) {
    std::vector<std::string> names;
    if (layout != "whole") {
      for (const std::string& part : split(layout, '+')) {
        // "3x 2g.20gb": three instances, as plan prints a layout.
        std::size_t copies = 1;
        std::string name = part;
        const std::size_t x = part.find('x');
        if (x > 0 && x != std::string::npos &&
            part.find_first_not_of("0123456789") == x) {
          copies = std::stoul(part.substr(0, std::min<std::size_t>(x, 3)));
          name = trim(part.substr(x + 1));
          if (copies < 1 || copies > kMaxInstancesPerProfile || name.empty()) {
            throw InputError("--mig-layouts " + text, "mig-layouts",
                             "'" + part + "': a count of instances is 1 to " +
                                 std::to_string(kMaxInstancesPerProfile) + ", then a profile name");
          }
        }
        if (name.empty()) {
          names.clear();
          break;
        }
        names.insert(names.end(), copies, name);
      }
      if (names.empty()) {
        throw InputError("--mig-layouts " + text, "mig-layouts",
                         "expected scenario, generated, or layouts separated by ';', each MIG "
                         "profile names joined by '+' (NxNAME for N of one, as plan prints "
                         "them; or whole), e.g. 7g.80gb;3g.40gb+3g.40gb;3x 2g.20gb + 1g.20gb");
      }
    }
    r.list.push_back(std::move(names));
  }
  if (r.list.empty()) {
    throw InputError("--mig-layouts", "mig-layouts",
                     "expected scenario, generated, or at least one layout");
  }
  return r;
}

bool searches_mig_layouts(std::string_view model) {
  return capabilities_of(model).mig_instances;
}

LayoutCapacity layout_capacity(const std::string& model, const nlohmann::json& params,
                               const std::string& base_dir, std::span<const PlanDevice> groups) {
  LayoutCapacity out;
  const std::unique_ptr<SharingModel> built = build_model(model, params, base_dir);
  const MigModel* mig = mig_of(*built);
  const auto hold = [&](MemoryMiB m, bool whole) {
    out.largest = std::max(out.largest, m);
    out.whole_gpus = out.whole_gpus || whole;
  };
  for (const PlanDevice& g : groups) {
    if (!mig || !g.device.supports_mig()) {
      hold(g.device.memory, true);
      continue;
    }
    for (int k = 0; k < mig->layout_count(g.device); ++k) {
      const MigDeviceLayout& l = mig->layout_at(g.device, k);
      if (!l.mig_enabled) hold(g.device.memory, true);
      for (std::size_t i = 0; i < l.instances.size(); ++i) {
        hold(mig->instance_profile(g.device, k, static_cast<int>(i)).memory, false);
      }
    }
  }
  if (!mig) return out;
  const std::vector<PlanDevice> devices = mig_devices(groups);
  for (const PlanDevice& d : devices) {
    nlohmann::json by_index = nlohmann::json::array();
    for (int i = 0; i < d.gpus_per_node; ++i) {
      const MigDeviceLayout& l = mig->layout_at(d.device, mig->initial_layout(d.device, i));
      by_index.push_back(l.mig_enabled ? nlohmann::json(profile_names(l)) : nlohmann::json());
    }
    out.by_device[d.device.name] = by_index;
  }
  if (mig->reconfigures()) {
    for (const PlanDevice& d : devices) {
      std::string words;
      for (int k = 0; k < mig->layout_count(d.device); ++k) {
        const MigDeviceLayout& l = mig->layout_at(d.device, k);
        words += (k ? " | " : "") +
                 layout_words(l.mig_enabled ? nlohmann::json(profile_names(l)) : nlohmann::json());
      }
      out.name += (out.name.empty() ? "" : "; ") +
                  (devices.size() > 1 ? d.device.name + " " : std::string()) +
                  "repartitions: " + words;
    }
    return out;
  }
  for (const PlanDevice& d : devices) {
    out.name += (out.name.empty() ? "" : "; ") +
                (devices.size() > 1 ? d.device.name + " " : std::string()) +
                device_words(out.by_device[d.device.name]);
  }
  return out;
}

std::vector<LayoutCandidate> mig_layout_candidates(const std::string& model,
                                                   const nlohmann::json& params,
                                                   const std::string& base_dir,
                                                   std::span<const PlanDevice> groups,
                                                   const MigLayoutRequest& request) {
  if (!searches_mig_layouts(model)) return {{"", "", params}};
  const std::vector<PlanDevice> devices = mig_devices(groups);
  const LayoutCapacity own = layout_capacity(model, params, base_dir, groups);
  const bool repartitions = params.is_object() && params.contains("layouts");
  std::vector<LayoutCandidate> out;
  std::vector<nlohmann::json> seen;  // by_device of each candidate kept
  const auto add = [&](const nlohmann::json& p, const std::string& origin) {
    const LayoutCapacity c = layout_capacity(model, p, base_dir, groups);
    if (std::find(seen.begin(), seen.end(), c.by_device) != seen.end()) return;
    seen.push_back(c.by_device);
    out.push_back({c.name, origin, p});
  };
  const nlohmann::json rest = without_layout(params);
  if (request.mode == MigLayoutMode::kList && !repartitions && !devices.empty()) {
    for (const auto& names : request.list) {
      add(uniform_params(rest, devices,
                         std::vector<std::vector<std::string>>(devices.size(), names)),
          "--mig-layouts");
    }
    return out;
  }
  out.push_back({own.name, "scenario", params});
  seen.push_back(own.by_device);
  if (request.mode == MigLayoutMode::kScenario || repartitions || devices.empty()) return out;
  std::vector<std::vector<std::vector<std::string>>> generated;  // per device, per profile
  std::size_t most = 0;
  for (const PlanDevice& d : devices) {
    generated.emplace_back();
    for (const MigProfile& p : d.device.mig_profiles) {
      if (!is_media_extension_profile(p.name)) {
        generated.back().push_back(filled_layout(d.device, p));
      }
    }
    most = std::max(most, generated.back().size());
  }
  for (std::size_t k = 0; k < most; ++k) {
    std::vector<std::vector<std::string>> per_device;
    for (const auto& layouts : generated) {
      per_device.push_back(layouts.empty() ? std::vector<std::string>{}
                                           : layouts[std::min(k, layouts.size() - 1)]);
    }
    add(uniform_params(rest, devices, per_device), "generated");
  }
  const std::string strategy =
      params.is_object() && params.contains("strategy") && params["strategy"].is_string()
          ? params["strategy"].get<std::string>()
          : "auto";
  if (strategy != "single") {
    // The scenario's own layout of GPU 0 on the first half of every node, the rest whole.
    std::vector<nlohmann::json> split;
    for (const PlanDevice& d : devices) {
      const nlohmann::json& by_index = own.by_device[d.device.name];
      split.push_back(by_index.empty() ? nlohmann::json() : by_index[0]);
    }
    const nlohmann::json p = half_whole_params(rest, devices, split);
    if (!p.is_null()) add(p, "generated");
  }
  return out;
}

}  // namespace gpumux
