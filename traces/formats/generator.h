// The synthetic trace generator: a stream of jobs with Poisson or bursty arrivals and
// per-field distributions (see traces/fields/distribution.h), deterministic for a given seed.
//
// Bursty arrivals are a two-state Markov-modulated Poisson process: bursts of mean length
// `mean_burst_s` take up `burst_fraction` of the time and arrive `burst_factor` times faster
// than calm periods, the rates chosen so that the long-run rate stays `rate_per_hour`.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "sim/core/job_source.h"
#include "sim/base/json_fields.h"
#include "sim/base/rng.h"
#include "traces/fields/distribution.h"

namespace gpumux {

// The most jobs a generator gives (its `jobs`, and `generate --jobs`).
inline constexpr std::int64_t kMaxGeneratedJobs = 1'000'000'000;

struct GeneratorSpec {
  std::uint64_t jobs = 1000;
  std::string process = "poisson";  // or "bursty"
  double rate_per_hour = 60.0;
  std::string where;  // "file#/pointer" of the arrival rate, for the error when times run out
  double burst_factor = 8.0;
  double burst_fraction = 0.1;
  double mean_burst_s = 600.0;
  Distribution runtime_s;
  Distribution gpus;
  Distribution sm_util;
  Distribution sm_share;
  Distribution memory_mib;
  Distribution kernel_us;
  Distribution checkpoint_s;
  double inference_fraction = 0.0;

  // Parses a generator object (docs/scenario-format.md "Synthetic generator"); absent keys take the documented
  // defaults. Throws InputError naming the key.
  static GeneratorSpec parse(JsonObject& o);
  // The spec with every default resolved, for the run summary.
  nlohmann::json to_json() const;
};

class GeneratedJobs : public JobSource {
 public:
  GeneratedJobs(GeneratorSpec spec, std::uint64_t seed);
  bool next(JobSpec& job) override;

 private:
  double next_gap_s();

  GeneratorSpec spec_;
  Rng rng_;
  std::uint64_t emitted_ = 0;
  double now_s_ = 0.0;
  bool in_burst_ = false;
  bool state_drawn_ = false;   // the first arrival state is drawn with P(burst) = burst_fraction
  double state_left_s_ = 0.0;  // time left in the current arrival state
};

}  // namespace gpumux
