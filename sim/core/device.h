// A GPU device type as the simulator sees it: capacities and the MIG profile table.
//
// Profiles are data (built-in ones live in models/builtin_devices.cc; scenarios may define or
// override them); nothing in the engine hard-codes a device.
#pragma once

#include <string>
#include <vector>

#include "sim/base/units.h"

namespace gpumux {

// One row of a device's MIG GPU-instance profile table (`nvidia-smi mig -lgipp`).
struct MigProfile {
  std::string name;                // e.g. "3g.40gb"
  int compute_slices = 0;          // of the device's compute slices (7 on A100/H100)
  int memory_slices = 0;           // of the device's memory slices (8 on A100/H100)
  MemoryMiB memory;                // usable memory of one instance
  int sms = 0;                     // streaming multiprocessors of one instance
  int max_count = 0;               // instances of this profile one GPU can hold
  std::vector<int> start_offsets;  // allowed first memory slice of an instance
};

struct DeviceProfile {
  std::string name;          // registry key, e.g. "A100-80GB"
  MemoryMiB memory;          // device memory usable by jobs
  int sms = 0;               // streaming multiprocessors
  std::string architecture;  // e.g. "ampere"; decides facts such as the MPS client limit
  int mps_client_limit = 0;  // 48 on Volta and later, 16 before (docs/gpu-facts.md "MPS")
  double memory_bandwidth_gbps = 0.0;
  // Dense 16-bit (bf16/fp16) tensor-core peak, TFLOP/s, without sparsity; 0: not known. The
  // LLM engine's performance model (models/llm/) needs it with memory_bandwidth_gbps.
  double peak_tflops_16bit = 0.0;
  int mig_memory_slices = 0;  // 0 when the device does not support MIG
  int mig_compute_slices = 0;
  std::vector<MigProfile> mig_profiles;
  std::string source;  // where the numbers come from; "unverified" marks secondary sources

  bool supports_mig() const { return mig_memory_slices > 0; }
};

}  // namespace gpumux
