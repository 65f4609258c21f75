#include "analysis/fleet/fleet_deploy.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "analysis/output/number_text.h"

namespace gpumux {

namespace {

int endpoints_on(const FleetGpu& gpu) { return static_cast<int>(gpu.endpoints.size()); }

// The group of each of the answer's GPUs, by GPU index (a gang's GPUs all name it).
std::vector<const FleetGpu*> group_of_gpu(const FleetAnswer& a) {
  std::vector<const FleetGpu*> out(static_cast<std::size_t>(a.gpu_count()), nullptr);
  for (const FleetGpu& g : a.gpus) {
    for (int k = 0; k < g.width; ++k) out[static_cast<std::size_t>(g.first + k)] = &g;
  }
  return out;
}

std::string plugin_config_for(const FleetAnswer& a, int k) {
  if (a.form == FleetForm::kInstances) return "gpumux-fleet-mig-mixed";
  if (a.form == FleetForm::kWhole) return "gpumux-fleet-whole";
  return "gpumux-fleet-" + a.model + "-" + std::to_string(k);
}

// The replica count every GPU of node `node` carries, or 0 when they differ (or the node holds
// none of the answer's GPUs).
int node_replicas(const FleetAnswer& a, int node, int per_node) {
  const auto groups = group_of_gpu(a);
  int k = 0;
  for (int g = node * per_node;
       g < std::min<int>((node + 1) * per_node, static_cast<int>(groups.size())); ++g) {
    const int here = endpoints_on(*groups[static_cast<std::size_t>(g)]);
    if (k != 0 && here != k) return 0;
    k = here;
  }
  return k;
}

std::string engine_flags(const FleetEndpoint& e) {
  // A plain service's server is the user's own: the plan gives its GPU and MPS settings only.
  if (e.plain) return "<" + e.id + "'s server>";
  std::ostringstream o;
  const auto flag = [&](const char* name, const char* key) {
    if (e.engine.is_object() && e.engine.contains(key) && e.engine[key].is_number()) {
      o << " --" << name << " " << number_text(e.engine[key].get<double>());
    }
  };
  o << "vllm serve " << e.llm_model;
  if (e.tensor_parallel > 1) o << " --tensor-parallel-size " << e.tensor_parallel;
  flag("gpu-memory-utilization", "gpu_memory_utilization");
  flag("max-model-len", "max_model_len");
  flag("max-num-seqs", "max_num_seqs");
  flag("max-num-batched-tokens", "max_num_batched_tokens");
  return o.str();
}

std::string engines_text(const FleetResult& r, const FleetAnswer& a) {
  std::ostringstream o;
  const int per = r.gpus_per_node;
  o << "# gpumux plan --fleet, " << a.model << " answer for '" << r.scenario_name
    << "': " << a.gpu_count() << " " << r.device << " GPUs on " << a.nodes(per) << " nodes of "
    << per
    << ".\n# One line per engine, as simulated. CUDA_VISIBLE_DEVICES is the GPU's index on its "
       "node.\n";
  if (a.form == FleetForm::kMpsClients) {
    o << "# Under MPS, start one control daemon per GPU (nvidia-cuda-mps-control -d) before its "
         "engines.\n";
  }
  int last_node = -1;
  for (const FleetGpu& gpu : a.gpus) {
    // Gangs come first and are no wider than a node's power-of-two share: one node each.
    const int node = gpu.first / per, index = gpu.first % per;
    if (node != last_node) o << "\n# node " << node << "\n";
    last_node = node;
    std::string devices = std::to_string(index);
    for (int k = 1; k < gpu.width; ++k) devices += "," + std::to_string(index + k);
    if (gpu.width == 1) {
      o << "# GPU " << index << " (plan GPU " << gpu.first << ")";
    } else {
      o << "# GPUs " << devices << " (plan GPUs " << gpu.first << "-"
        << gpu.first + gpu.width - 1 << "), whole";
    }
    if (!gpu.mig_layout.empty()) {
      o << ": MIG instances";
      for (const auto& p : gpu.mig_layout) o << " " << p;
    }
    o << "\n";
    for (const int i : gpu.endpoints) {
      const FleetEndpoint& e = a.endpoints[static_cast<std::size_t>(i)];
      if (e.replicas > 1) {
        o << "# " << e.id << ": replica " << e.replica + 1 << " of " << e.replicas << " of "
          << e.parent << " (a round-robin router sends it every " << e.replicas << "th request)\n";
      }
      if (a.form == FleetForm::kInstances && gpu.width == 1) {
        o << "CUDA_VISIBLE_DEVICES=<UUID of a " << e.mig_profile << " instance on GPU " << index
          << " (nvidia-smi -L)> ";
      } else {
        o << "CUDA_VISIBLE_DEVICES=" << devices << " ";
      }
      if (e.mps_thread_percentage > 0) {
        o << "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" << e.mps_thread_percentage
          << " CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=" << e.mps_memory_limit_mib << "M ";
      }
      o << engine_flags(e) << "  # " << e.id << "\n";
    }
  }
  return o.str();
}

std::string mig_parted_text(const FleetResult& r, const FleetAnswer& a) {
  std::ostringstream o;
  const int per = r.gpus_per_node;
  o << "# gpumux plan --fleet, mig answer for '" << r.scenario_name
    << "': node k applies config gpumux-fleet-node-<k> (node label nvidia.com/mig.config).\n";
  o << "version: v1\nmig-configs:\n";
  std::string filter;
  if (!r.device_pci_ids.empty()) {
    filter = "    device-filter: [";
    for (std::size_t i = 0; i < r.device_pci_ids.size(); ++i) {
      std::string id = r.device_pci_ids[i];
      std::transform(id.begin() + 2, id.end(), id.begin() + 2, ::toupper);
      filter += (i ? ", \"" : "\"") + id + "\"";
    }
    filter += "]\n";
  }
  const auto groups = group_of_gpu(a);
  for (int node = 0; node < a.nodes(per); ++node) {
    o << "  " << fleet_mig_config_name(node) << ":\n";
    for (int index = 0; index < per; ++index) {
      const std::size_t g = static_cast<std::size_t>(node * per + index);
      o << "  - devices: [" << index << "]\n" << filter;
      // Unused GPUs and a tensor-parallel gang's stay whole.
      if (g >= groups.size() || groups[g]->width > 1) {
        o << "    mig-enabled: false\n    mig-devices: {}\n";
        continue;
      }
      std::map<std::string, int> counts;
      for (const auto& p : groups[g]->mig_layout) ++counts[p];
      o << "    mig-enabled: true\n    mig-devices:\n";
      for (const auto& [profile, count] : counts) {
        o << "      \"" << profile << "\": " << count << "\n";
      }
    }
  }
  return o.str();
}

std::string device_plugin_text(const FleetResult& r, const FleetAnswer& a) {
  std::set<int> counts;
  for (const FleetGpu& g : a.gpus) counts.insert(endpoints_on(g));  // a gang: 1
  if (a.form == FleetForm::kInstances || a.form == FleetForm::kWhole) counts = {1};
  std::ostringstream o;
  o << "# gpumux plan --fleet, " << a.model << " answer for '" << r.scenario_name
    << "': the NVIDIA device plugin's configs by name (helm config.map.<name>); a node takes "
       "one with the label nvidia.com/device-plugin.config=<name> (README.txt lists them).\n";
  for (const int k : counts) {
    o << "---\n# " << plugin_config_for(a, k) << "\nversion: v1\nflags:\n  migStrategy: "
      << (a.form == FleetForm::kInstances ? "mixed" : "none") << "\n";
    if (a.form == FleetForm::kTimeSliced || a.form == FleetForm::kMpsClients) {
      o << "sharing:\n  " << (a.form == FleetForm::kMpsClients ? "mps" : "timeSlicing") << ":\n"
        << "    renameByDefault: false\n";
      if (a.form == FleetForm::kTimeSliced) o << "    failRequestsGreaterThanOne: false\n";
      o << "    resources:\n    - name: nvidia.com/gpu\n      replicas: " << k << "\n";
    }
  }
  return o.str();
}

std::string kubernetes_text(const FleetResult& r, const FleetAnswer& a) {
  std::ostringstream o;
  const int per = r.gpus_per_node;
  o << "# gpumux plan --fleet, " << a.model << " answer for '" << r.scenario_name
    << "': each endpoint's container resources and node selector.\n";
  for (const FleetGpu& gpu : a.gpus) {
    const int node = gpu.first / per;
    const int k = node_replicas(a, node, per);
    for (const int i : gpu.endpoints) {
      const FleetEndpoint& e = a.endpoints[static_cast<std::size_t>(i)];
      o << e.id << ":\n  resources:\n    limits:\n      ";
      if (a.form == FleetForm::kInstances && gpu.width == 1) {
        o << "nvidia.com/mig-" << e.mig_profile << ": 1\n";
      } else {
        o << "nvidia.com/gpu: " << gpu.width << "\n";
      }
      o << "  nodeSelector:\n    ";
      if (a.form == FleetForm::kInstances) {
        o << "nvidia.com/mig.config: " << fleet_mig_config_name(node) << "\n";
      } else if (k > 0) {
        o << "nvidia.com/device-plugin.config: " << plugin_config_for(a, k) << "\n";
      } else {
        o << "# node " << node << " mixes replica counts: no device plugin config fits it\n";
      }
      o << "  args: \"" << engine_flags(e) << "\"\n";
    }
  }
  return o.str();
}

std::string readme_text(const FleetResult& r, const FleetAnswer& a) {
  std::ostringstream o;
  const int per = r.gpus_per_node;
  o << "gpumux plan --fleet: the " << a.model << " answer for '" << r.scenario_name << "', "
    << a.gpu_count() << " GPUs on " << a.nodes(per) << " nodes.\n\n"
    << "scenario.json, trace.csv  the fleet as simulated (gpumux run scenario.json); its GPUs "
       "form one simulated node: endpoints do not span GPUs, so nodes change no number\n"
    << "engines.txt               each engine's launch line, as simulated\n";
  if (a.form == FleetForm::kInstances)
    o << "mig-parted.yaml           the MIG layout of every node's GPUs\n";
  o << "device-plugin.yaml        the NVIDIA device plugin's configs\n"
    << "kubernetes.txt            each endpoint's resources and node selector\n\nNode labels:\n";
  for (int node = 0; node < a.nodes(per); ++node) {
    o << "  node " << node << ":";
    if (a.form == FleetForm::kInstances)
      o << " nvidia.com/mig.config=" << fleet_mig_config_name(node);
    const int k = node_replicas(a, node, per);
    if (k > 0) {
      o << " nvidia.com/device-plugin.config=" << plugin_config_for(a, k);
    } else {
      o << " (its GPUs carry different numbers of endpoints: the device plugin applies one "
           "replica count per node, so launch them from engines.txt)";
    }
    o << "\n";
  }
  o << "\nWhat Kubernetes does not reproduce: a pod asking for nvidia.com/gpu gets whichever "
       "replica the kubelet hands out, so ";
  if (a.form == FleetForm::kInstances) {
    o << "any free instance of its profile (isolated: every instance of a profile predicts the "
         "same numbers).\n";
  } else if (a.form == FleetForm::kWhole) {
    o << "any whole GPU (one endpoint per GPU: the same numbers on any).\n";
  } else {
    o << "which endpoints share a GPU may differ from the plan, and with it every number; "
         "engines.txt pins the planned map with CUDA_VISIBLE_DEVICES.\n";
  }
  if (a.form == FleetForm::kMpsClients) {
    o << "The device plugin's MPS gives each of a GPU's k replicas 100/k % of the threads and "
         "1/k of the memory, as planned.\n";
  }
  return o.str();
}

}  // namespace

std::string fleet_mig_config_name(int node) { return "gpumux-fleet-node-" + std::to_string(node); }

std::vector<FleetDeployFile> fleet_deploy_files(const FleetResult& result,
                                                const FleetAnswer& answer) {
  std::vector<FleetDeployFile> out;
  out.push_back({"README.txt", readme_text(result, answer)});
  out.push_back({"engines.txt", engines_text(result, answer)});
  if (answer.form == FleetForm::kInstances)
    out.push_back({"mig-parted.yaml", mig_parted_text(result, answer)});
  out.push_back({"device-plugin.yaml", device_plugin_text(result, answer)});
  out.push_back({"kubernetes.txt", kubernetes_text(result, answer)});
  return out;
}

}  // namespace gpumux
