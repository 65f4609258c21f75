// Built-in devices and small helpers shared by the MIG tests.
#pragma once

#include <string>
#include <vector>

#include "models/device_registry.h"
#include "models/mig/layout.h"
#include "sim/core/job.h"
#include "tests/sim/test_support.h"

namespace gpumux::mig_test {

// A job source over a fixed list (already sorted by submit).
using gpumux::testing::ListSource;

inline const DeviceProfile& device(const std::string& name) {
  static const DeviceRegistry registry = DeviceRegistry::with_builtins();
  return registry.get(name, "test");
}

inline JobSpec job(std::int64_t memory_mib, double sm_util = 1.0, double sm_share = 1.0,
                   std::string profile = "", int gpus = 1) {
  JobSpec j;
  j.memory = MemoryMiB(memory_mib);
  j.sm_util = sm_util;
  j.sm_share = sm_share;
  j.mig_profile = std::move(profile);
  j.gpus = gpus;
  return j;
}

// n copies of `name`.
inline std::vector<std::string> times(int n, const std::string& name) {
  return std::vector<std::string>(static_cast<std::size_t>(n), name);
}

inline std::vector<std::string> operator+(std::vector<std::string> a,
                                          const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace gpumux::mig_test
