// A workload's measured facts (docs/workload-catalogue.md): what a workload catalogue holds for
// one named workload, per device. A job that names a workload carries a pointer to these facts,
// resolved once when the job is read (traces/transforms/workload_source.h), so that a model
// reads them on its hot path without a lookup by name into a map and without allocating.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/units.h"

namespace gpumux {

// One measured speed: the workload's rate in an instance of `profile` (a MIG profile of the
// device) or beside one job of `partner` (a workload), 1.0 = as fast as alone on the whole GPU.
struct MeasuredSpeed {
  std::string name;  // the profile or the partner workload
  double speed = 0.0;
};

// What was measured for the workload on one device type; every fact optional.
struct WorkloadDeviceFacts {
  std::string device;                     // a device profile's name (sim/core/device.h)
  std::optional<double> iteration_s;      // one iteration alone on the whole GPU, seconds
  std::optional<MemoryMiB> memory;        // peak device memory alone
  std::optional<double> sm_util;          // duty cycle alone, (0, 1]
  std::optional<double> mem_bw_util;      // memory-bandwidth utilization alone, [0, 1]
  std::vector<MeasuredSpeed> mig_speeds;  // by profile name, in the file's order
  std::vector<MeasuredSpeed> colocation;  // by partner workload name (models/colocation_speed.h)

  // The measured speed in `profile`, or nullptr. Allocation-free (a handful of names).
  const double* mig_speed(std::string_view profile) const {
    for (const MeasuredSpeed& m : mig_speeds) {
      if (m.name == profile) return &m.speed;
    }
    return nullptr;
  }
  // The measured speed beside one job of workload `partner`, or nullptr. Allocation-free.
  const double* colocation_speed(std::string_view partner) const {
    for (const MeasuredSpeed& m : colocation) {
      if (m.name == partner) return &m.speed;
    }
    return nullptr;
  }
};

struct WorkloadFacts {
  std::string name;
  std::vector<WorkloadDeviceFacts> devices;  // at most one per device name

  // The facts measured on `device`, or nullptr. Allocation-free.
  const WorkloadDeviceFacts* on(std::string_view device) const {
    for (const WorkloadDeviceFacts& d : devices) {
      if (d.device == device) return &d;
    }
    return nullptr;
  }
};

}  // namespace gpumux
