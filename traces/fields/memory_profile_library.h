// Memory-over-time profiles for jobs (sim/core/memory_profile.h), read from a scenario's
// `trace.memory_profiles`, and the job-source decorator that hands them out.
//
//   "memory_profiles": {
//     "library": "genai_memory_profiles.json",  // {"profiles": [...]} in the format below
//     "profiles": [...],                          // and/or inline profiles
//     "fraction_of_jobs": 1.0                     // share of jobs given a profile (default 1)
//   }
// A profile is explicit, {"name", "steps": [[progress_s, fraction], ...], "repeat_from_s",
// "period_s"}, or parametric, {"name", "ramp_s", "steady_fraction", "spike_period_s",
// "spike_s"}: a linear ramp (4 steps) to the steady fraction, then, every spike period, a spike
// to the peak lasting spike_s. Each job picks one profile uniformly at random (seeded).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/core/job_source.h"
#include "sim/base/json_fields.h"
#include "sim/core/memory_profile.h"
#include "sim/base/rng.h"

namespace gpumux {

struct MemoryProfileConfig {
  std::vector<std::shared_ptr<const MemoryProfile>> profiles;
  double fraction_of_jobs = 1.0;
  nlohmann::json echo;  // for the run summary: sources, names, counts
  std::string library_path;  // the library file read (resolved), empty when none

  bool empty() const { return profiles.empty(); }
};

// Reads the `memory_profiles` object; `base_dir` resolves a relative library path.
// Throws InputError naming the file, pointer and field.
MemoryProfileConfig parse_memory_profiles(JsonObject& o, const std::string& base_dir);

// Parses one profile object (explicit or parametric).
std::shared_ptr<const MemoryProfile> parse_memory_profile(JsonObject& p);

// Gives each job from `inner` a profile from `config` (or none, with probability
// 1 - fraction_of_jobs), drawing from its own seeded generator.
class ProfileAssigningSource : public JobSource {
 public:
  ProfileAssigningSource(JobSource& inner, const MemoryProfileConfig& config, std::uint64_t seed)
      : inner_(inner), config_(config), rng_(seed) {}
  bool next(JobSpec& job) override;
  std::uint64_t skipped_rows() const override { return inner_.skipped_rows(); }

 private:
  JobSource& inner_;
  const MemoryProfileConfig& config_;
  Rng rng_;
};

}  // namespace gpumux
