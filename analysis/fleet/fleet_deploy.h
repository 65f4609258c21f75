// What an operator applies to run one answer of `gpumux plan --fleet` the way it was simulated
// (docs/planning.md "LLM fleets", "What to apply"), written beside the answer's scenario:
//
// - engines.txt: per node and GPU, each endpoint's launch line: CUDA_VISIBLE_DEVICES (the GPU's
//   index on its node; under MIG the instance to pick), the MPS client's
//   CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT, and the vLLM flags
//   the plan simulated (--gpu-memory-utilization, --max-model-len, --max-num-seqs,
//   --max-num-batched-tokens); replicas say which round-robin replica they are.
// - mig-parted.yaml (mig): one config per node, `gpumux-fleet-node-<k>`, each GPU index of the
//   node with exactly its planned instances (device-filter: the device's PCI ids where gpumux
//   knows them); GPUs of the last node the plan leaves unused stay whole (mig-enabled: false).
//   Node k takes it with the label nvidia.com/mig.config=gpumux-fleet-node-<k>.
// - device-plugin.yaml (timeslice, mps, mig): the NVIDIA device plugin's configs by name
//   (helm config.map), one per replica count k: sharing.timeSlicing / sharing.mps with
//   nvidia.com/gpu replicas k, or for mig `flags.migStrategy: mixed`. A node takes a config by
//   nvidia.com/device-plugin.config=<name>; a node whose GPUs carry different counts has no
//   single config (the plugin applies one replica count to a node's GPUs), which README.txt
//   says, naming the node.
// - kubernetes.txt: each endpoint's resource request (nvidia.com/gpu: 1, or
//   nvidia.com/mig-<profile>: 1) and node selector.
// - README.txt: the files, node labels, and what Kubernetes cannot reproduce: which replica of
//   a shared GPU a pod gets is the kubelet's choice, so the planned co-location holds for MIG
//   (isolated instances: any instance of the profile predicts the same) and one endpoint per
//   GPU, and for time-slicing and MPS only when launched as engines.txt pins them.
#pragma once

#include <string>
#include <vector>

#include "analysis/fleet/fleet_plan.h"

namespace gpumux {

struct FleetDeployFile {
  std::string name;  // without folders
  std::string text;
};

// The files of `answer` (of `result`), in a fixed order. Precondition: the answer placed every
// endpoint (gpus not empty).
std::vector<FleetDeployFile> fleet_deploy_files(const FleetResult& result,
                                                const FleetAnswer& answer);

// The mig-parted config name of node `node` ("gpumux-fleet-node-<node>").
std::string fleet_mig_config_name(int node);

}  // namespace gpumux
