#include "traces/transforms/resample_source.h"

#include <numeric>
#include <utility>

#include "sim/base/input_error.h"

namespace gpumux {

const std::vector<std::string>& resample_method_names() {
  static const std::vector<std::string> names = {"bootstrap", "arrival-order"};
  return names;
}

std::string_view resample_method_name(ResampleMethod method) {
  switch (method) {
    case ResampleMethod::kBootstrap:
      return "bootstrap";
    case ResampleMethod::kArrivalOrder:
      return "arrival-order";
    case ResampleMethod::kNone:
      break;
  }
  return "none";
}

ResamplingSource::ResamplingSource(JobSource& upstream, ResampleMethod method, std::uint64_t seed,
                                   std::string where)
    : upstream_(upstream), method_(method), rng_(seed), where_(std::move(where)) {}

std::uint64_t ResamplingSource::uniform_index(std::uint64_t n) {
  const std::uint64_t limit = Rng::max() - Rng::max() % n;
  std::uint64_t x;
  do {
    x = rng_();
  } while (x >= limit);
  return x % n;
}

void ResamplingSource::read_list() {
  read_ = true;
  JobSpec job;
  while (upstream_.next(job)) {
    if (jobs_.size() >= kMaxResampleJobs) {
      throw InputError(where_, "resample",
                       "the trace has more than " + std::to_string(kMaxResampleJobs) +
                           " jobs; resampling draws from a list held in memory");
    }
    jobs_.push_back(std::move(job));
    job = JobSpec();
  }
  const std::size_t n = jobs_.size();
  if (method_ == ResampleMethod::kBootstrap) {
    drawn_.assign(n, 0);
    for (std::size_t k = 0; k < n; ++k) ++drawn_[uniform_index(n)];
    for (const std::uint32_t copies : drawn_) distinct_ += copies > 0;
  } else {
    instants_.reserve(n);
    for (const JobSpec& j : jobs_) instants_.push_back(j.submit);
    // Fisher-Yates from the last position down: every permutation equally likely.
    drawn_.resize(n);
    std::iota(drawn_.begin(), drawn_.end(), std::uint32_t{0});
    for (std::size_t i = n; i > 1; --i) std::swap(drawn_[i - 1], drawn_[uniform_index(i)]);
    distinct_ = n;
  }
}

bool ResamplingSource::next(JobSpec& job) {
  if (!read_) read_list();
  if (method_ == ResampleMethod::kArrivalOrder) {
    if (position_ >= jobs_.size()) return false;
    job = std::move(jobs_[drawn_[position_]]);  // each list job is emitted once
    job.submit = instants_[position_];
    ++position_;
    return true;
  }
  while (position_ < jobs_.size() && copy_ == drawn_[position_]) {
    ++position_;
    copy_ = 0;
  }
  if (position_ >= jobs_.size()) return false;
  ++copy_;
  JobSpec& drawn = jobs_[position_];
  const std::string suffix = "#" + std::to_string(copy_);
  if (copy_ == drawn_[position_]) {
    job = std::move(drawn);  // the last copy: the list job is not read again
  } else {
    job = drawn;
  }
  job.id += suffix;
  return true;
}

}  // namespace gpumux
