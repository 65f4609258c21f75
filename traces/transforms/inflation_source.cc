#include "traces/transforms/inflation_source.h"

#include <cmath>

#include "sim/base/input_error.h"

namespace gpumux {

InflatingSource::InflatingSource(JobSource& upstream, const InflationConfig& config,
                                 std::int64_t cluster_milli, std::uint64_t seed, std::string where)
    : upstream_(upstream),
      config_(config),
      cluster_milli_(cluster_milli),
      rng_(seed),
      where_(std::move(where)) {}

void InflatingSource::read_list() {
  read_ = true;
  if (cluster_milli_ <= 0) {
    throw InputError(where_, "inflation",
                     "the load is a share of the cluster's GPUs, and this cluster has none (CPU "
                     "pools alone): give cluster_gpus");
  }
  JobSpec job;
  double demand = 0.0;  // sum of gpus x gpu_milli x runtime (milli-GPU-seconds)
  while (upstream_.next(job)) {
    if (pods_.size() >= kMaxInflationPods) {
      throw InputError(where_, "inflation",
                       "the trace has more than " + std::to_string(kMaxInflationPods) +
                           " jobs; inflation re-samples a list held in memory");
    }
    if (config_.max_runtime > Time::zero() && job.runtime > config_.max_runtime) {
      job.runtime = config_.max_runtime;
      ++clipped_;
    }
    demand += static_cast<double>(job.gpus) * job.gpu_milli * job.runtime.seconds();
    pods_.push_back(job);
  }
  if (pods_.empty()) throw InputError(where_, "inflation", "the trace has no job to re-sample");
  if (demand <= 0.0) {
    throw InputError(where_, "inflation", "the trace's jobs ask for no GPU time (runtimes 0)");
  }
  const double mean = demand / static_cast<double>(pods_.size());
  rate_per_s_ = config_.load * static_cast<double>(cluster_milli_) / mean;
  if (config_.jobs == 0) config_.jobs = pods_.size();
}

bool InflatingSource::next(JobSpec& job) {
  if (!read_) read_list();
  if (emitted_ >= config_.jobs) return false;
  // Exponential gaps by inversion and a uniform index by rejection: no dependence on the
  // standard library's distributions, so arrivals are the same on every toolchain.
  const double u = (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53;
  clock_s_ += -std::log(u) / rate_per_s_;
  const std::uint64_t n = pods_.size();
  const std::uint64_t limit = Rng::max() - Rng::max() % n;
  std::uint64_t x;
  do {
    x = rng_();
  } while (x >= limit);
  job = pods_[x % n];
  job.id += "#" + std::to_string(emitted_);
  job.submit = Time::from_seconds(clock_s_);
  ++emitted_;
  return true;
}

}  // namespace gpumux
