#include "traces/transforms/integer_seconds_source.h"

#include <algorithm>

#include "sim/state/pool.h"

namespace gpumux {

namespace {
constexpr std::int64_t kUsPerSecond = 1'000'000;
}

void to_integer_seconds(JobSpec& job) {
  // Halves of a second are exact in microseconds, so a tie is seen as one and goes to even.
  const double submit_s = static_cast<double>(job.submit.us()) / kUsPerSecond;
  job.submit = Time::from_us(round_half_even(submit_s) * kUsPerSecond);
  const std::int64_t runtime_s = std::max<std::int64_t>(1, job.runtime.us() / kUsPerSecond);
  job.runtime = Time::from_us(runtime_s * kUsPerSecond);
}

bool IntegerSecondsSource::next(JobSpec& job) {
  if (!inner_.next(job)) return false;
  to_integer_seconds(job);
  return true;
}

}  // namespace gpumux
