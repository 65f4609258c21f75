#include "analysis/stats/count_histogram.h"

#include <algorithm>
#include <cmath>

namespace gpumux {

namespace {

// The value of nearest rank `q` (as nearest_rank() computes it) among `n` sorted values.
std::uint64_t value_at_rank(const std::map<std::uint64_t, std::uint64_t>& counts, std::uint64_t n,
                            double q) {
  auto rank = static_cast<std::uint64_t>(std::ceil(q / 100.0 * static_cast<double>(n)));
  rank = std::clamp<std::uint64_t>(rank, 1, n);
  std::uint64_t seen = 0;
  for (const auto& [value, count] : counts) {
    seen += count;
    if (seen >= rank) return value;
  }
  return counts.rbegin()->first;  // not reached: the counts sum to n
}

}  // namespace

DistributionSummary CountHistogram::summary() const {
  DistributionSummary s;
  s.count = static_cast<std::size_t>(size_);
  if (size_ == 0) return s;
  // Integers: every partial sum below 2^53 is exact, so this is the very double summarize()
  // adds up one value at a time.
  double total = 0.0;
  for (const auto& [value, count] : counts_) {
    total += static_cast<double>(value) * static_cast<double>(count);
  }
  s.mean = total / static_cast<double>(size_);
  s.p50 = static_cast<double>(value_at_rank(counts_, size_, 50));
  s.p90 = static_cast<double>(value_at_rank(counts_, size_, 90));
  s.p95 = static_cast<double>(value_at_rank(counts_, size_, 95));
  s.p99 = static_cast<double>(value_at_rank(counts_, size_, 99));
  s.max = static_cast<double>(counts_.rbegin()->first);
  return s;
}

}  // namespace gpumux
