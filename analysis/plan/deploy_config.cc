#include "analysis/plan/deploy_config.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <utility>

#include "models/mig/mig_hybrid_model.h"
#include "models/mig/mig_model.h"
#include "models/registry.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"

namespace gpumux {

namespace {

constexpr std::size_t kCommentColumns = 100;

std::string file_safe(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) c = '-';
  }
  return out;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// `sentence` as YAML comment lines of at most kCommentColumns, continuation lines indented.
std::string comment_lines(const std::string& sentence) {
  std::string out, line = "#";
  std::size_t i = 0;
  while (i < sentence.size()) {
    std::size_t j = sentence.find(' ', i);
    if (j == std::string::npos) j = sentence.size();
    const std::string word = sentence.substr(i, j - i);
    if (line.size() > 3 && line.size() + 1 + word.size() > kCommentColumns) {
      out += line + "\n";
      line = "#  ";
    }
    line += " " + word;
    i = j + 1;
  }
  return out + line + "\n";
}

// What an answer's files say beyond their YAML: comment lines, and the same sentences for
// DeployFiles::notes (each once).
class Differences {
 public:
  explicit Differences(std::vector<std::string>& notes) : notes_(notes) {}
  void add(const std::string& sentence) {
    text_ += comment_lines(sentence);
    if (std::find(notes_.begin(), notes_.end(), sentence) == notes_.end())
      notes_.push_back(sentence);
  }
  const std::string& text() const { return text_; }

 private:
  std::vector<std::string>& notes_;
  std::string text_;
};

const ModelParameter* declared(const std::vector<ModelParameter>& params, std::string_view name) {
  for (const ModelParameter& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// Why a parameter the files do not express has no equivalent there, by key; keys the writer
// maps are not listed.
std::string reason_for(std::string_view key) {
  static const std::map<std::string_view, std::string_view> kReasons = {
      {"time_slice",
       "the driver's time slice is set per GPU with `nvidia-smi compute-policy --set-timeslice`"},
      {"time_slice_us",
       "the driver's time slice is set per GPU with `nvidia-smi compute-policy --set-timeslice`, "
       "whose presets have undocumented durations"},
      {"switch_cost_us", "a property of the GPU the simulation assumed, not a setting"},
      {"interference", "a property of the GPU and jobs the simulation assumed, not a setting"},
      {"launch_gap_us", "a property of the jobs the simulation assumed, not a setting"},
      {"calibration", "measured physics the simulation used, not a setting"},
      {"sm_allocation", "how the GPU hands out SMs, assumed by the simulation, not a setting"},
      {"oom",
       "who dies on out of memory is the applications' behaviour, assumed by the simulation"},
      {"fault_recovery_s", "a recovery time the simulation assumed, not a setting"},
      {"fault_teardown_s", "a teardown time the simulation assumed, not a setting"},
      {"server_restart_s", "a restart time the simulation assumed, not a setting"},
      {"memory_admission_fraction", "the plugin admits by replica count, never by memory"},
      {"memory_headroom", "the plugin admits by replica count, never by memory"},
      {"one_user_per_server", "which tenants share an MPS server is not a plugin setting"},
      {"compute_aware",
       "in Kubernetes a pod names its instance profile in its request (nvidia.com/mig-<profile>); "
       "gpumux chose the instance for each job"},
      {"sizing",
       "in Kubernetes a pod names its instance profile in its request (nvidia.com/mig-<profile>); "
       "gpumux chose the instance for each job"},
      {"instance_choice", "which instance a pod gets is the kubelet's and the plugin's choice"},
      {"repartition", "mig-parted applies one layout; see the note on repartitioning"},
  };
  const auto it = kReasons.find(key);
  return it == kReasons.end() ? "not a setting of the deployed system" : std::string(it->second);
}

// One line per key of `params` (a sharing.params object) that is not in `mapped`.
void add_unmapped(Differences& d, const nlohmann::json& params, const std::set<std::string>& mapped,
                  const std::string& prefix) {
  if (!params.is_object()) return;
  for (const auto& [key, value] : params.items()) {
    if (mapped.count(key) > 0) continue;
    d.add("gpumux simulated " + prefix + key + "=" + value.dump() +
          "; the device plugin has no equivalent (" + reason_for(key) + ").");
  }
}

// The replica count of a timeslice-style model's declared parameters (prefix "" or "inner."),
// with the difference memory admission makes.
int timeslice_replicas(const std::vector<ModelParameter>& params, const std::string& prefix,
                       Differences& d) {
  if (const ModelParameter* r = declared(params, prefix + "replicas")) {
    return static_cast<int>(r->value);
  }
  const ModelParameter* m = declared(params, prefix + "max_jobs_per_gpu");
  const int n = m != nullptr ? static_cast<int>(m->value) : 1;
  d.add(
      "gpumux simulated " + prefix +
      "admission=memory (a job joins only while the residents' summed peak memory fits, at most " +
      std::to_string(n) + " jobs); the device plugin has no equivalent: it hands out " +
      std::to_string(n) +
      " replicas (max_jobs_per_gpu) without a memory check, gpumux's "
      "admission=replicas, so co-located jobs that do not fit run out of memory instead of "
      "waiting.");
  return n;
}

std::string mig_profiles_yaml(const MigDeviceLayout& layout, const std::string& indent) {
  std::vector<std::pair<std::string, int>> counts;  // in instance order, first appearance
  for (const MigInstanceSpec& inst : layout.instances) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == inst.profile; });
    if (it == counts.end()) {
      counts.emplace_back(inst.profile, 1);
    } else {
      ++it->second;
    }
  }
  if (counts.empty()) return " {}\n";
  std::string out = "\n";
  for (const auto& [name, n] : counts)
    out += indent + "\"" + name + "\": " + std::to_string(n) + "\n";
  return out;
}

// The entries of one mig-parted config: `layouts[i]` is GPU index i's layout.
std::string mig_entries_yaml(const std::vector<MigDeviceLayout>& layouts) {
  std::vector<std::pair<MigDeviceLayout, std::vector<int>>> groups;  // distinct, by first index
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == layouts[i]; });
    if (it == groups.end()) {
      groups.push_back({layouts[i], {static_cast<int>(i)}});
    } else {
      it->second.push_back(static_cast<int>(i));
    }
  }
  std::string out;
  for (const auto& [layout, indices] : groups) {
    std::string devices = "all";
    if (groups.size() > 1) {
      devices.clear();
      for (int i : indices) devices += (devices.empty() ? "" : ", ") + std::to_string(i);
      devices = "[" + devices + "]";
    }
    out += "    - devices: " + devices + "\n";
    out += std::string("      mig-enabled: ") + (layout.mig_enabled ? "true" : "false") + "\n";
    if (layout.mig_enabled) out += "      mig-devices:" + mig_profiles_yaml(layout, "        ");
  }
  return out;
}

enum class Kind { kExclusive, kTimeSlice, kMps, kMig, kMigTimeSlice, kMigMps, kOther };

// What the device plugin and mig-parted write for the model, from its declared capabilities.
Kind kind_of(const std::string& model) {
  const SharingCapabilities c = capabilities_of(model);
  switch (c.device_sharing) {
    case DeviceSharing::kNone:
      return c.mig_instances ? Kind::kMig : Kind::kExclusive;
    case DeviceSharing::kTimeSlicing:
      return c.mig_instances ? Kind::kMigTimeSlice : Kind::kTimeSlice;
    case DeviceSharing::kMps:
      return c.mig_instances ? Kind::kMigMps : Kind::kMps;
    case DeviceSharing::kNoEquivalent:
      break;
  }
  return Kind::kOther;
}

// The device types of the answer, each once, with the groups that have it.
struct DeviceGroups {
  const DeviceProfile* device = nullptr;
  std::vector<const DeployGroup*> groups;
  int most_gpus_per_node = 0;
};

std::string answer_line(const std::string& model, const DeviceGroups& g) {
  std::string s;
  for (const DeployGroup* group : g.groups) {
    s += (s.empty() ? "" : ", ") + std::to_string(group->nodes) + " nodes x " +
         std::to_string(group->gpus_per_node) + " " + group->device.name + " (group " +
         group->name + ", " + std::to_string(group->nodes * group->gpus_per_node) + " GPUs)";
  }
  return "gpumux answer '" + model + "': " + s + ".";
}

std::string mig_strategy_for(const std::vector<ModelParameter>& params, Differences& d) {
  const ModelParameter* s = declared(params, "strategy");
  const std::string chosen = s != nullptr ? s->choice : "auto";
  if (chosen == "single") return "single";
  if (chosen == "auto") {
    d.add(
        "gpumux simulated strategy=\"auto\" (gpumux put each job in the smallest free instance "
        "that holds it); the device plugin has no equivalent: under migStrategy mixed a pod asks "
        "for nvidia.com/mig-<profile> itself (gpumux's strategy=\"mixed\").");
  }
  return "mixed";
}

}  // namespace

std::string device_plugin_file_name(const DeviceProfile& device) {
  return "device-plugin-" + file_safe(device.name) + ".yaml";
}

std::string plugin_config_name(const DeviceProfile& device) {
  return "gpumux-" + file_safe(device.name);
}

std::string mig_config_name(const DeviceProfile& device, int candidate) {
  std::string name = "gpumux-" + file_safe(device.name);
  if (candidate >= 0) name += "-" + std::to_string(candidate);
  return name;
}

DeployFiles deploy_files(const DeployAnswer& answer) {
  if (answer.groups.empty()) {
    throw InputError("plan answer", "groups", "an answer needs at least one node group");
  }
  DeployFiles out;
  const Kind kind = kind_of(answer.model);
  const nlohmann::json params = answer.params.is_null() ? nlohmann::json::object() : answer.params;
  JsonObject object(params, answer.model + " params", "");
  const std::unique_ptr<SharingModel> model = make_sharing_model(answer.model, object, "model");
  if (kind == Kind::kOther) {
    out.notes.push_back(
        "gpumux simulated '" + answer.model +
        "'; the NVIDIA device plugin has no equivalent (fractional GPU shares and memory quotas "
        "need a third-party scheduler and device plugin): no config written.");
    return out;
  }

  std::vector<DeviceProfile> devices;
  std::vector<int> gpus_per_node;
  std::vector<DeviceGroups> by_device;
  for (const DeployGroup& g : answer.groups) {
    devices.push_back(g.device);
    gpus_per_node.push_back(g.gpus_per_node);
    auto it = std::find_if(by_device.begin(), by_device.end(),
                           [&](const DeviceGroups& d) { return d.device->name == g.device.name; });
    if (it == by_device.end()) {
      by_device.push_back({&g.device, {}, 0});
      it = by_device.end() - 1;
    }
    it->groups.push_back(&g);
    it->most_gpus_per_node = std::max(it->most_gpus_per_node, g.gpus_per_node);
  }
  model->check_cluster(devices, gpus_per_node);
  for (const DeviceProfile& d : devices) model->check_device(d);
  const std::vector<ModelParameter> declared_params = model->parameters();

  const MigModel* mig = nullptr;
  if (const auto* m = dynamic_cast<const MigModel*>(model.get())) mig = m;
  if (const auto* h = dynamic_cast<const MigHybridModel*>(model.get())) mig = &h->mig();

  std::vector<std::string> notes;
  std::string mig_parted_text;
  Differences mig_differences(notes);
  if (mig != nullptr) {
    std::set<std::string> mapped = {"layout", "layouts",  "mig_parted",
                                    "config", "strategy", "inner"};
    add_unmapped(mig_differences, params, mapped, "");
    std::string configs;
    std::vector<std::string> candidate_names;
    for (const DeviceGroups& g : by_device) {
      const DeviceProfile& device = *g.device;
      if (!device.supports_mig()) continue;
      if (mig->reconfigures()) {
        for (int k = 0; k < mig->layout_count(device); ++k) {
          configs += "  " + mig_config_name(device, k) + ":\n" +
                     mig_entries_yaml({mig->layout_at(device, k)});
          candidate_names.push_back(mig_config_name(device, k));
        }
      } else {
        std::vector<MigDeviceLayout> layouts;
        for (int i = 0; i < g.most_gpus_per_node; ++i) {
          layouts.push_back(mig->layout_at(device, mig->initial_layout(device, i)));
        }
        configs += "  " + mig_config_name(device) + ":\n" + mig_entries_yaml(layouts);
      }
    }
    if (mig->reconfigures()) {
      std::string names;
      for (const std::string& n : candidate_names) names += (names.empty() ? "" : ", ") + n;
      mig_differences.add(
          "gpumux simulated repartitioning among the candidate layouts (configs " + names +
          "; GPUs start in the first of each device); mig-parted has no equivalent: it applies "
          "one config when asked, so moving a node to another config needs a controller that "
          "drains it and relabels nvidia.com/mig.config (or runs nvidia-mig-parted apply).");
    }
    mig_parted_text =
        "# mig-parted config (NVIDIA/mig-parted, api/spec/v1/spec.go) for the " +
        std::string("gpumux answer '") + answer.model +
        "'.\n# Apply on each node: nvidia-mig-parted apply -f mig-parted.yaml -c CONFIG, or with "
        "the GPU\n# operator label the node nvidia.com/mig.config=CONFIG (docs/deploying.md).\n" +
        mig_differences.text() + "version: v1\nmig-configs:\n" + configs;
  }

  for (const DeviceGroups& g : by_device) {
    const DeviceProfile& device = *g.device;
    Differences d(notes);
    std::string strategy = "none";
    std::string sharing;
    switch (kind) {
      case Kind::kExclusive:
        d.add(
            "No sharing: every nvidia.com/gpu is a whole GPU, as gpumux's 'exclusive'; this is "
            "the plugin's default, written so that a node can be set back from a sharing "
            "config.");
        break;
      case Kind::kTimeSlice: {
        add_unmapped(d, params, {"admission", "replicas", "max_jobs_per_gpu"}, "");
        const int n = timeslice_replicas(declared_params, "", d);
        d.add(
            "A pod asking for k > 1 replicas may get several on one GPU (the plugin spreads them "
            "best-effort; failRequestsGreaterThanOne: true refuses such pods, as the plugin's "
            "README recommends); gpumux ran a k-GPU job on k distinct GPUs.");
        sharing =
            "sharing:\n  timeSlicing:\n    renameByDefault: false\n"
            "    failRequestsGreaterThanOne: false\n    resources:\n"
            "      - name: nvidia.com/gpu\n        replicas: " +
            std::to_string(n) + "\n";
        break;
      }
      case Kind::kMps: {
        add_unmapped(d, params, {"admission", "replicas", "active_thread_percentage"}, "");
        int n = 0;
        if (const ModelParameter* r = declared(declared_params, "replicas")) {
          n = static_cast<int>(r->value);
        } else {
          const ModelParameter* fallback = declared(declared_params, "client_limit_fallback");
          n = device.mps_client_limit > 0
                  ? device.mps_client_limit
                  : (fallback != nullptr ? static_cast<int>(fallback->value) : 48);
          const std::string admission =
              declared(declared_params, "memory_headroom") != nullptr ? "average" : "peak";
          d.add("gpumux simulated admission=" + admission + " (clients join while their summed " +
                (admission == "peak" ? "peak" : "average") + " memory fits, up to the " +
                device.name + "'s MPS client limit of " + std::to_string(n) +
                "); the device plugin has no equivalent: replicas = " + std::to_string(n) +
                ", the most clients the model admits. Plan with {\"admission\": \"replicas\", "
                "\"replicas\": N} to simulate a config the plugin deploys.");
        }
        const ModelParameter* atp = declared(declared_params, "active_thread_percentage");
        const ModelParameter* oom = declared(declared_params, "oom");
        const std::string oom_name = oom != nullptr ? oom->choice : "allocator";
        const double share = 100.0 / n;
        d.add("The plugin limits each of the " + std::to_string(n) +
              " MPS replicas to an equal share of the GPU: " +
              number_text(device.memory.gib() / n) + " GiB of memory and " + number_text(share) +
              "% of the SMs (k8s-device-plugin README, \"With CUDA MPS\"); gpumux simulated " +
              number_text(atp != nullptr ? atp->value : 100.0) + "% of the SMs per client and " +
              (oom_name == "offender" ? "each job's own memory limit (oom=offender)"
                                      : "no per-client memory limit (oom=" + oom_name + ")") +
              ": a job above its share runs out of memory under the plugin.");
        if (params.is_object() && params.contains("active_thread_percentage") && atp != nullptr &&
            atp->value < share) {
          d.add("gpumux simulated active_thread_percentage=" + number_text(atp->value) +
                "; the device plugin has no equivalent: a pod sets "
                "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" +
                number_text(atp->value) + " itself (a client can only lower its cap).");
        } else if (params.is_object() && params.contains("active_thread_percentage") &&
                   atp != nullptr && atp->value > share) {
          d.add("gpumux simulated active_thread_percentage=" + number_text(atp->value) +
                "; the device plugin has no equivalent: it caps every replica at " +
                number_text(share) + "% and a client cannot raise its cap.");
        }
        d.add(
            "The plugin fails a pod that asks for more than one MPS replica "
            "(failRequestsGreaterThanOne defaults to true for MPS); gpumux ran a k-GPU job with "
            "one client on each of k GPUs.");
        sharing =
            "sharing:\n  mps:\n    renameByDefault: false\n    resources:\n"
            "      - name: nvidia.com/gpu\n        replicas: " +
            std::to_string(n) + "\n";
        break;
      }
      case Kind::kMig:
        strategy = mig_strategy_for(declared_params, d);
        break;
      case Kind::kMigTimeSlice: {
        strategy = mig_strategy_for(declared_params, d);
        const nlohmann::json inner = params.value("inner", nlohmann::json::object());
        add_unmapped(d, inner, {"admission", "replicas", "max_jobs_per_gpu"}, "inner.");
        const int n = timeslice_replicas(declared_params, "inner.", d);
        std::vector<std::string> resources;
        bool whole = !device.supports_mig();
        for (int k = 0; device.supports_mig() && k < mig->layout_count(device); ++k) {
          const MigDeviceLayout& layout = mig->layout_at(device, k);
          whole = whole || !layout.mig_enabled;
          for (const MigInstanceSpec& inst : layout.instances) {
            const std::string r = "nvidia.com/mig-" + inst.profile;
            if (strategy == "mixed" &&
                std::find(resources.begin(), resources.end(), r) == resources.end())
              resources.push_back(r);
          }
        }
        if (strategy == "single" || whole) resources.insert(resources.begin(), "nvidia.com/gpu");
        sharing =
            "sharing:\n  timeSlicing:\n    renameByDefault: false\n"
            "    failRequestsGreaterThanOne: false\n    resources:\n";
        for (const std::string& r : resources) {
          sharing += "      - name: " + r + "\n        replicas: " + std::to_string(n) + "\n";
        }
        break;
      }
      case Kind::kMigMps: {
        strategy = mig_strategy_for(declared_params, d);
        const nlohmann::json inner = params.value("inner", nlohmann::json::object());
        d.add("gpumux simulated MPS inside each MIG instance (inner=" + inner.dump() +
              "); the device plugin has no equivalent: its sharing.mps does not support MIG "
              "devices (k8s-device-plugin README, \"With CUDA MPS\"), so this config shares no "
              "instance; run one MPS control daemon per MIG device on the node yourself.");
        break;
      }
      case Kind::kOther:
        break;
    }
    const std::string config = plugin_config_name(device);
    const std::string file = device_plugin_file_name(device);
    std::string text =
        "# NVIDIA Kubernetes device plugin config (NVIDIA/k8s-device-plugin, api/config/v1) for "
        "the\n" +
        comment_lines(answer_line(answer.model, g)) +
        "# Apply with the plugin's helm chart, one named config per device type "
        "(docs/deploying.md):\n"
        "#   helm upgrade -i nvdp nvdp/nvidia-device-plugin -n nvidia-device-plugin "
        "--create-namespace \\\n"
        "#     --set-file config.map." +
        config + "=" + file +
        "\n#   kubectl label node NODE nvidia.com/device-plugin.config=" + config + "\n" +
        d.text() + "version: v1\nflags:\n  migStrategy: " + strategy + "\n" + sharing;
    out.files.push_back({file, std::move(text)});
  }
  if (mig != nullptr) out.files.push_back({kMigPartedFileName, std::move(mig_parted_text)});
  out.notes = std::move(notes);
  return out;
}

}  // namespace gpumux
