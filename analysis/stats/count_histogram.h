// A sample of non-negative integers (e.g. jobs killed per out-of-memory event) kept as a count
// per distinct value: memory grows with the number of distinct values, never with the sample.
// Its summary is exactly what summarize() gives for the full sample.
#pragma once

#include <cstdint>
#include <map>

#include "analysis/stats/distribution_summary.h"

namespace gpumux {

class CountHistogram {
 public:
  void add(std::uint64_t value) {
    ++counts_[value];
    ++size_;
  }
  std::uint64_t size() const { return size_; }
  // Count, mean, nearest-rank percentiles and max (summarize()); count 0 when empty.
  DistributionSummary summary() const;

 private:
  std::map<std::uint64_t, std::uint64_t> counts_;  // value -> occurrences
  std::uint64_t size_ = 0;
};

}  // namespace gpumux
