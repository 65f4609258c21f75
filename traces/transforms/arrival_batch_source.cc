#include "traces/transforms/arrival_batch_source.h"

#include <algorithm>
#include <string>
#include <utility>

#include "sim/core/job_order.h"

namespace gpumux {

ArrivalBatchSource::ArrivalBatchSource(JobSource& inner, std::uint64_t jobs_per_batch, Time every)
    : inner_(inner), per_batch_(jobs_per_batch), every_(every) {}

bool ArrivalBatchSource::fill() {
  group_.clear();
  at_ = 0;
  if (!have_ahead_) {
    if (ended_ || !inner_.next(ahead_)) {
      ended_ = true;
      return false;
    }
  }
  group_.push_back(std::move(ahead_));
  have_ahead_ = false;
  while (!ended_) {
    if (!inner_.next(ahead_)) {
      ended_ = true;
      break;
    }
    if (ahead_.submit != group_.front().submit) {
      have_ahead_ = true;
      break;
    }
    group_.push_back(std::move(ahead_));
  }
  std::sort(group_.begin(), group_.end(),
            [](const JobSpec& a, const JobSpec& b) { return compare_job_ids(a.id, b.id) < 0; });
  return true;
}

bool ArrivalBatchSource::next(JobSpec& job) {
  if (at_ == group_.size() && !fill()) return false;
  const std::uint64_t batch = rank_++ / per_batch_;
  const auto every = static_cast<std::uint64_t>(every_.us());
  if (every != 0 && batch > static_cast<std::uint64_t>(kMaxSimulatedUs) / every) {
    throw TimeOverflow("arrival batch " + std::to_string(batch) + " starts past the latest time");
  }
  job = std::move(group_[at_++]);
  job.submit = Time::from_us(static_cast<std::int64_t>(batch * every));
  return true;
}

}  // namespace gpumux
