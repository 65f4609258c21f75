// A distribution summary (count, mean, nearest-rank p50/p90/p95/p99, max) in bounded memory.
//
// The first `exact_limit` values are kept and summarised exactly (summarize()), so runs of up to
// that many values report exact percentiles, byte for byte as before. Past it, the values move
// into a histogram on a logarithmic grid, as LatencyHistogram does for request latencies: bin k
// holds [kMin * kGrowth^k, kMin * kGrowth^(k+1)), and a percentile is reported at the geometric
// middle of the bin that holds its nearest rank, clamped to the smallest and largest value seen.
// Its relative error is then at most sqrt(kGrowth) - 1 < kRelativeError (0.5 %) for values in
// [kMin, kMax]; zero and negative values are counted apart and reported as the smallest value
// seen (exactly, when they are zeros), values at or above kMax likewise as the largest, and values
// below kMin (1e-6: a microsecond in seconds) fall in the first bin, clamped as said. Count, mean and max stay exact (the mean is summed in the
// order values came). Memory: the exact values up to the limit, then 45 KB whatever the count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "analysis/stats/distribution_summary.h"

namespace gpumux {

class QuantileSketch {
 public:
  static constexpr double kMin = 1e-6;
  static constexpr double kMax = 1e18;
  static constexpr double kGrowth = 1.01;
  static constexpr double kRelativeError = 0.005;
  // Exact up to this many values by default (800 KB per sketch): every run of up to 100,000
  // jobs reports exact job percentiles.
  static constexpr std::size_t kDefaultExactLimit = 100'000;
  static constexpr std::size_t kAlwaysExact = std::numeric_limits<std::size_t>::max();

  explicit QuantileSketch(std::size_t exact_limit = kDefaultExactLimit)
      : exact_limit_(exact_limit) {}

  void add(double value);
  std::size_t count() const { return count_; }
  // True once the values went into the histogram: the percentiles are then within
  // kRelativeError of the exact ones.
  bool approximate() const { return !bins_.empty(); }
  // The summary; exact (summarize()) while approximate() is false. Sorts the kept values.
  DistributionSummary summary();
  // summary().to_json(), plus "relative_error": kRelativeError when approximate().
  nlohmann::json to_json();

 private:
  static std::size_t bin_of(double value);
  static double middle_of(std::size_t bin);
  void add_to_bins(double value);
  double percentile(double q) const;

  std::size_t exact_limit_;
  std::vector<double> exact_;
  std::vector<std::uint64_t> bins_;  // empty while exact
  std::uint64_t non_positive_ = 0;   // values <= 0, in approximate mode
  std::uint64_t above_ = 0;          // values >= kMax, in approximate mode
  std::size_t count_ = 0;
  double sum_ = 0.0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

}  // namespace gpumux
