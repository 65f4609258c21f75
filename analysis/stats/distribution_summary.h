// Mean and nearest-rank percentiles of a sample, for JCT, queueing delay and slowdown.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <vector>

namespace gpumux {

struct DistributionSummary {
  std::size_t count = 0;
  double mean = 0.0;
  double p50 = 0.0, p90 = 0.0, p95 = 0.0, p99 = 0.0, max = 0.0;

  // {count, mean, p50, p90, p95, p99, max}; an empty sample has count 0 and null statistics
  // (a percentile of nothing is not 0).
  nlohmann::json to_json() const;
};

// Sorts `values` in place. An empty sample gives count 0 (and null statistics in to_json).
DistributionSummary summarize(std::vector<double>& values);

// The nearest-rank percentile (q in [0, 100]) of sorted, non-empty values.
double nearest_rank(const std::vector<double>& sorted, double q);

}  // namespace gpumux
