// Nodes and pods as the packing policies see them (the FGD study's model of a Kubernetes
// cluster): CPU, host memory, and GPUs of 1000 milli each. Filled by the openb loaders
// (openb_csv.h) for `gpumux pack`, and from the simulated cluster for `gpumux run`
// (sim/placement/share_view.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/base/units.h"

namespace gpumux::packing {

inline constexpr int kGpuMilli = 1000;      // capacity of one GPU in milli-GPU
inline constexpr int kMaxGpusPerNode = 16;  // node arrays are fixed-size for speed

struct NodeSpec {
  std::string name;
  std::int64_t cpu_milli = 0;
  MemoryMiB memory;
  int num_gpus = 0;
  std::string gpu_model;  // empty on CPU-only nodes
};

struct PodSpec {
  std::string name;
  std::int64_t cpu_milli = 0;
  MemoryMiB memory;
  int num_gpus = 0;
  int gpu_milli = 0;                  // per GPU, 0..1000
  std::vector<std::string> gpu_spec;  // accepted GPU models; empty = any
};

// Joins a pod's gpu_spec with '|' ("" when any model is accepted).
std::string gpu_spec_text(const PodSpec& pod);

}  // namespace gpumux::packing
