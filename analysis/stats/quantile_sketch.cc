#include "analysis/stats/quantile_sketch.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace gpumux {

namespace {

const double kLogGrowth = std::log(QuantileSketch::kGrowth);
const std::size_t kBins = static_cast<std::size_t>(
    std::ceil(std::log(QuantileSketch::kMax / QuantileSketch::kMin) / kLogGrowth));

}  // namespace

std::size_t QuantileSketch::bin_of(double value) {
  if (!(value > kMin)) return 0;
  const auto k = static_cast<std::size_t>(std::log(value / kMin) / kLogGrowth);
  return std::min(k, kBins - 1);
}

double QuantileSketch::middle_of(std::size_t bin) {
  return kMin * std::exp((static_cast<double>(bin) + 0.5) * kLogGrowth);
}

void QuantileSketch::add(double value) {
  ++count_;
  sum_ += value;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  if (bins_.empty()) {
    exact_.push_back(value);
    if (exact_.size() <= exact_limit_) return;
    // Past the limit: every value so far moves into the histogram, and the list is freed.
    bins_.assign(kBins, 0);
    for (double v : exact_) add_to_bins(v);
    std::vector<double>().swap(exact_);
    return;
  }
  add_to_bins(value);
}

void QuantileSketch::add_to_bins(double value) {
  if (value <= 0.0) {
    ++non_positive_;
  } else if (value >= kMax) {
    ++above_;
  } else {
    ++bins_[bin_of(value)];
  }
}

double QuantileSketch::percentile(double q) const {
  // The nearest rank, as nearest_rank() takes it on the sorted values.
  const auto n = static_cast<std::uint64_t>(count_);
  auto rank = static_cast<std::uint64_t>(std::ceil(q / 100.0 * static_cast<double>(n)));
  rank = std::clamp<std::uint64_t>(rank, 1, n);
  if (rank <= non_positive_) return min_;
  std::uint64_t seen = non_positive_;
  for (std::size_t k = 0; k < bins_.size(); ++k) {
    seen += bins_[k];
    if (seen >= rank) return std::clamp(middle_of(k), min_, max_);
  }
  return max_;  // among the values at or above kMax
}

DistributionSummary QuantileSketch::summary() {
  if (!approximate()) return summarize(exact_);
  DistributionSummary s;
  s.count = count_;
  s.mean = sum_ / static_cast<double>(count_);
  s.p50 = percentile(50);
  s.p90 = percentile(90);
  s.p95 = percentile(95);
  s.p99 = percentile(99);
  s.max = max_;
  return s;
}

nlohmann::json QuantileSketch::to_json() {
  nlohmann::json j = summary().to_json();
  if (approximate()) j["relative_error"] = kRelativeError;
  return j;
}

}  // namespace gpumux
