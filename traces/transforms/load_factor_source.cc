#include "traces/transforms/load_factor_source.h"

#include <cmath>

namespace gpumux {

bool LoadFactorSource::next(JobSpec& job) {
  if (!inner_.next(job)) return false;
  if (!first_) first_ = job.submit;
  // Rounded to the microsecond: the same input gives the same times on every machine.
  const double gap_us = static_cast<double>((job.submit - *first_).us()) / factor_;
  job.submit = *first_ + Time::from_us(static_cast<std::int64_t>(std::llround(gap_us)));
  return true;
}

}  // namespace gpumux
