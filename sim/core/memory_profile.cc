#include "sim/core/memory_profile.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpumux {

MemoryProfile::MemoryProfile(std::string name, std::vector<Step> steps, double repeat_from_us,
                             double period_us)
    : name_(std::move(name)),
      steps_(std::move(steps)),
      repeat_from_us_(repeat_from_us),
      period_us_(period_us) {
  if (steps_.empty() || steps_.front().at_us != 0.0) {
    throw std::invalid_argument("memory profile '" + name_ + "': the first step must start at 0");
  }
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    if (!(steps_[i].fraction >= 0.0 && steps_[i].fraction <= 1.0)) {
      throw std::invalid_argument("memory profile '" + name_ + "': fractions must be in [0, 1]");
    }
    if (i > 0 && !(steps_[i].at_us > steps_[i - 1].at_us)) {
      throw std::invalid_argument("memory profile '" + name_ + "': steps must increase");
    }
    max_fraction_ = std::max(max_fraction_, steps_[i].fraction);
  }
  if (period_us_ > 0.0) {
    const bool starts_a_step = std::any_of(
        steps_.begin(), steps_.end(), [&](const Step& s) { return s.at_us == repeat_from_us_; });
    if (!starts_a_step || steps_.back().at_us >= repeat_from_us_ + period_us_) {
      throw std::invalid_argument(
          "memory profile '" + name_ +
          "': the repeated steps must start at a step and fit in the period");
    }
  }
}

double MemoryProfile::fold(double progress_us) const {
  if (period_us_ <= 0.0 || progress_us < repeat_from_us_) return progress_us;
  return repeat_from_us_ + std::fmod(progress_us - repeat_from_us_, period_us_);
}

std::size_t MemoryProfile::step_index(double folded_us) const {
  const auto it = std::upper_bound(steps_.begin(), steps_.end(), folded_us,
                                   [](double t, const Step& s) { return t < s.at_us; });
  return static_cast<std::size_t>(it - steps_.begin()) - 1;
}

double MemoryProfile::fraction_at(double progress_us) const {
  return steps_[step_index(fold(std::max(0.0, progress_us)))].fraction;
}

double MemoryProfile::next_change_after(double progress_us) const {
  progress_us = std::max(0.0, progress_us);
  const double folded = fold(progress_us);
  const std::size_t i = step_index(folded);
  const double base = progress_us - folded;  // start of the current period (0 before repeating)
  const double current = steps_[i].fraction;
  // Walk forward (at most one full period plus the prefix) to the next different fraction.
  std::size_t j = i;
  double offset = base;
  for (std::size_t guard = 0; guard <= 2 * steps_.size() + 1; ++guard) {
    ++j;
    if (j == steps_.size()) {
      if (period_us_ <= 0.0) return kNever;
      offset += period_us_;
      j = step_index(repeat_from_us_);
    }
    const double at = offset + steps_[j].at_us;
    if (steps_[j].fraction != current && at > progress_us) return at;
  }
  return kNever;  // every repeated step has the current fraction
}

double MemoryProfile::mean_fraction() const {
  if (period_us_ <= 0.0) return steps_.back().fraction;
  double weighted = 0.0;
  for (std::size_t i = step_index(repeat_from_us_); i < steps_.size(); ++i) {
    const double end = i + 1 < steps_.size() ? steps_[i + 1].at_us : repeat_from_us_ + period_us_;
    weighted += steps_[i].fraction * (end - steps_[i].at_us);
  }
  return weighted / period_us_;
}

}  // namespace gpumux
