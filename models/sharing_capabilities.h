// What code outside a sharing model's folder may know of it: its capabilities, declared in its
// row of the sharing-model table (models/registry.cc). Deploy configs, plan's MIG layout
// search and savings baseline, and the scenario checks read these fields; none of them tests a
// model's name (tests/architecture/ scans the product code for that).
#pragma once

#include <cstdint>
#include <string_view>

namespace gpumux {

// How the processes of one device (a GPU, or a MIG instance when `mig_instances`) share it on a
// real node, as NVIDIA's Kubernetes device plugin expresses it (its `sharing` block).
enum class DeviceSharing : std::uint8_t {
  kNone,         // one pod per device (no sharing block)
  kTimeSlicing,  // sharing.timeSlicing
  kMps,          // sharing.mps (the plugin supports it on whole GPUs only)
  kNoEquivalent  // nothing NVIDIA ships deploys it (fractional shares need another scheduler)
};

// How a model's contention physics is fitted on measurements of processes sharing one GPU
// (kernel-overlap rows of gpumux-probe, co-located pairs, replays of a measured trace). Such
// measurements name their sharing by the model's name (the `mode` column of overlap CSVs,
// gpumux-probe's and the replay check's --mode, the pairs fit's --model).
enum class ContentionForm : std::uint8_t {
  kNone,         // not fitted on sharing measurements
  kTimeSlicing,  // whole contexts take turns: slice, switch cost, interference
  kConcurrent,   // kernels of several processes side by side: contention, thread caps
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
  ContentionForm contention_form = ContentionForm::kNone;
  // The parameter that caps one process's share of the SMs, in percent (empty: none); the
  // calibration sets it per measured row, and to 100 where processes ran uncapped.
  std::string_view thread_cap_parameter = {};
  // Its job speeds are fitted on measured per-profile speeds (`gpumux calibrate mig-speeds`).
  bool fits_mig_speeds = false;
};

}  // namespace gpumux
