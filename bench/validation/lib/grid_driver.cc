#include "bench/validation/lib/grid_driver.h"

#include <algorithm>
#include <cmath>

namespace gpumux {
namespace {

double nearest_rank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

}  // namespace

void RequestLatencyPool::add_reference(const std::vector<double>& latencies_us,
                                       std::int64_t unfinished, std::int64_t events) {
  reference_.insert(reference_.end(), latencies_us.begin(), latencies_us.end());
  out_.reference.unfinished += static_cast<double>(unfinished);
  out_.reference_events += events;
}

void RequestLatencyPool::add_fast(const RequestLevelReplica& replica) {
  fast_.merge(replica.latencies());
  out_.fast.unfinished += replica.counts().unfinished;
}

RequestLatencyComparison RequestLatencyPool::finish() {
  std::sort(reference_.begin(), reference_.end());
  out_.reference.p50_us = nearest_rank(reference_, 0.50);
  out_.reference.p95_us = nearest_rank(reference_, 0.95);
  out_.reference.p99_us = nearest_rank(reference_, 0.99);
  out_.reference.served = static_cast<double>(reference_.size());
  out_.fast.p50_us = fast_.percentile_us(0.50);
  out_.fast.p95_us = fast_.percentile_us(0.95);
  out_.fast.p99_us = fast_.percentile_us(0.99);
  out_.fast.served = fast_.count();
  return out_;
}

}  // namespace gpumux
