// Request latencies on a logarithmic grid: bounded memory however many requests a service
// serves, with percentiles good to half a bin (0.5%) and an exact mean.
//
// Bin k holds latencies in [kMinUs * kGrowth^k, kMinUs * kGrowth^(k+1)); the first bin also
// takes anything smaller, the last anything larger. Weights are doubles so that the analytic
// mode can add expected (fractional) request counts.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace gpumux {

class LatencyHistogram {
 public:
  static constexpr double kMinUs = 1.0;
  static constexpr double kGrowth = 1.01;
  static constexpr std::size_t kBins = 2800;  // up to ~1.3e6 s

  LatencyHistogram() : weights_(kBins, 0.0) {}

  static std::size_t bin_of(double us) {
    if (!(us > kMinUs)) return 0;
    const auto k = static_cast<std::size_t>(std::log(us / kMinUs) / std::log(kGrowth));
    return std::min(k, kBins - 1);
  }
  static double lower_edge(std::size_t k) {
    return kMinUs * std::pow(kGrowth, static_cast<double>(k));
  }

  void add(double us, double weight = 1.0) {
    weights_[bin_of(us)] += weight;
    total_ += weight;
    sum_us_ += us * weight;
  }
  // Adds `weight` requests to bin `k` whose mean latency the caller adds separately through
  // add_sum (analytic mode spreads a distribution over bins).
  void add_to_bin(std::size_t k, double weight) {
    weights_[k] += weight;
    total_ += weight;
  }
  void add_sum(double sum_us) { sum_us_ += sum_us; }
  void merge(const LatencyHistogram& o) {
    for (std::size_t k = 0; k < kBins; ++k) weights_[k] += o.weights_[k];
    total_ += o.total_;
    sum_us_ += o.sum_us_;
  }

  double count() const { return total_; }
  // The distribution as (latency us, share of requests at or below it) at the upper edge of
  // every bin that holds requests, in increasing latency; empty when nothing was recorded.
  template <class Emit>
  void for_each_cdf_point(Emit emit) const {
    if (total_ <= 0) return;
    double seen = 0.0;
    for (std::size_t k = 0; k < kBins; ++k) {
      if (weights_[k] <= 0) continue;
      seen += weights_[k];
      emit(lower_edge(k + 1), std::min(1.0, seen / total_));
    }
  }
  double mean_us() const { return total_ > 0 ? sum_us_ / total_ : 0.0; }
  // Nearest-rank percentile (q in (0, 1]), reported at the geometric middle of its bin.
  double percentile_us(double q) const {
    if (total_ <= 0) return 0.0;
    const double rank = q * total_;
    double seen = 0.0;
    for (std::size_t k = 0; k < kBins; ++k) {
      seen += weights_[k];
      if (seen >= rank * (1.0 - 1e-12) && weights_[k] > 0) {
        return lower_edge(k) * std::sqrt(kGrowth);
      }
    }
    return lower_edge(kBins - 1);
  }

 private:
  std::vector<double> weights_;
  double total_ = 0.0;
  double sum_us_ = 0.0;
};

}  // namespace gpumux
