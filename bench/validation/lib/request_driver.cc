#include "bench/validation/lib/request_driver.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpumux {

RequestQueue::RequestQueue(const RequestDriver& driver, std::uint64_t seed,
                           const std::string& who)
    : driver_(driver), rng_(seed ^ 0x9e3779b97f4a7c15ULL) {
  auto check = [&](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(who + ": requests." + what);
  };
  check(driver.rate_per_us > 0.0, "rate_per_us must be > 0");
  check(driver.service_us > 0.0, "service_us must be > 0");
  check(driver.max_batch >= 1, "max_batch must be >= 1");
  check(driver.batch_cost >= 0.0, "batch_cost must be >= 0");
  next_arrival_ = gap();
}

double RequestQueue::gap() {
  const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
  return -std::log1p(-u) / driver_.rate_per_us;
}

void RequestQueue::arrive(double now) {
  waiting_.push_back(now);
  next_arrival_ = now + gap();
}

double RequestQueue::start_burst() {
  const std::size_t b = std::min(waiting_.size(), static_cast<std::size_t>(driver_.max_batch));
  in_service_.assign(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(b));
  waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(b));
  return driver_.service_us * (1.0 + driver_.batch_cost * static_cast<double>(b - 1));
}

void RequestQueue::finish_burst(double now, double warmup, std::vector<double>& latencies_us) {
  for (double a : in_service_) {
    if (a >= warmup) latencies_us.push_back(now - a);
  }
  in_service_.clear();
}

std::int64_t RequestQueue::unfinished(double warmup) const {
  std::int64_t n = 0;
  for (double a : waiting_) n += a >= warmup ? 1 : 0;
  for (double a : in_service_) n += a >= warmup ? 1 : 0;
  return n;
}

}  // namespace gpumux
