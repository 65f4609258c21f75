// Built-in devices and small helpers shared by the MIG tests.
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <utility>
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

// `count` jobs named j0, j1, ... arriving at whole seconds after gaps drawn uniformly in
// [0, max_gap_s): each made by `make(rng)` right after its gap is drawn; its id and submit are
// set here.
template <class Make>
std::vector<JobSpec> random_arrivals(std::mt19937_64& rng, int count, double max_gap_s,
                                     Make make) {
  std::vector<JobSpec> trace;
  double t = 0;
  for (int k = 0; k < count; ++k) {
    t += std::uniform_real_distribution<double>(0, max_gap_s)(rng);
    JobSpec j = make(rng);
    j.id = "j" + std::to_string(k);
    j.submit = Time::from_seconds(std::floor(t));
    trace.push_back(std::move(j));
  }
  return trace;
}

}  // namespace gpumux::mig_test
