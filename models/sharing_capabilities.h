// What code outside a sharing model's folder may know of it: its capabilities, declared in its
// row of the sharing-model table (models/registry.cc). Deploy configs, plan's MIG layout
// search and savings baseline, and the scenario checks read these fields; none of them tests a
// model's name (tests/architecture/ scans the product code for that).
#pragma once

#include <cstdint>

namespace gpumux {

// How the processes of one device (a GPU, or a MIG instance when `mig_instances`) share it on a
// real node, as NVIDIA's Kubernetes device plugin expresses it (its `sharing` block).
enum class DeviceSharing : std::uint8_t {
  kNone,         // one pod per device (no sharing block)
  kTimeSlicing,  // sharing.timeSlicing
  kMps,          // sharing.mps (the plugin supports it on whole GPUs only)
  kNoEquivalent  // nothing NVIDIA ships deploys it (fractional shares need another scheduler)
};

struct SharingCapabilities {
  DeviceSharing device_sharing = DeviceSharing::kNoEquivalent;
  // GPUs are split into MIG instances (a mig-parted config; plan searches MIG layouts for it).
  bool mig_instances = false;
  // One job per GPU at full speed: the answer savings are counted against and the "FACTORx
  // exclusive" objectives are relative to. Exactly one row has it; it is the default model.
  bool savings_baseline = false;
  // May run on a pooled cluster (cluster.pool), where every job runs at full speed on its share.
  bool runs_on_pool = false;
};

}  // namespace gpumux
