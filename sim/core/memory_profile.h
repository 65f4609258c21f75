// A job's device memory over its execution, as a share of its peak (JobSpec::memory).
//
// Time here is the job's progress: microseconds of exclusive runtime done, so a job slowed by
// sharing stretches its memory phases with its work. The profile is piecewise constant: step i
// holds `fraction[i]` from `at_us[i]` until the next step. When `period_us` > 0 the steps from
// `repeat_from_us` on repeat forever with that period (steady state with periodic spikes, or a
// sampled series replayed); otherwise the last step holds until the job ends.
//
// Profiles are immutable and shared between jobs (a library drawn from), so a replay of
// millions of jobs keeps a few profiles in memory, not one per job.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/base/units.h"

namespace gpumux {

class MemoryProfile {
 public:
  struct Step {
    double at_us = 0.0;     // progress at which the step begins
    double fraction = 1.0;  // of the job's peak memory, in [0, 1]
  };

  // Preconditions (checked, std::invalid_argument): steps non-empty, first at 0, strictly
  // increasing, fractions in [0, 1]; with a period, repeat_from_us is a step's start and the
  // period is longer than the repeated steps span.
  MemoryProfile(std::string name, std::vector<Step> steps, double repeat_from_us = 0.0,
                double period_us = 0.0);

  const std::string& name() const { return name_; }
  const std::vector<Step>& steps() const { return steps_; }
  double period_us() const { return period_us_; }
  double repeat_from_us() const { return repeat_from_us_; }

  // Share of the peak in use at `progress_us` (>= 0).
  double fraction_at(double progress_us) const;
  // The first progress > progress_us at which the fraction changes; +infinity when never.
  double next_change_after(double progress_us) const;
  // Highest fraction the profile ever reaches.
  double max_fraction() const { return max_fraction_; }
  // Time-average fraction over a long run (the steady state when periodic).
  double mean_fraction() const;

  static constexpr double kNever = std::numeric_limits<double>::infinity();

 private:
  // Index of the step in force at `progress_us` and that progress folded into one period.
  std::size_t step_index(double folded_us) const;
  double fold(double progress_us) const;

  std::string name_;
  std::vector<Step> steps_;
  double repeat_from_us_ = 0.0;
  double period_us_ = 0.0;
  double max_fraction_ = 0.0;
};

}  // namespace gpumux
