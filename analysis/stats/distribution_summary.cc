#include "analysis/stats/distribution_summary.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/stats/sort_doubles.h"

namespace gpumux {

double nearest_rank(const std::vector<double>& sorted, double q) {
  const auto n = sorted.size();
  auto rank = static_cast<std::size_t>(std::ceil(q / 100.0 * static_cast<double>(n)));
  rank = std::clamp<std::size_t>(rank, 1, n);
  return sorted[rank - 1];
}

DistributionSummary summarize(std::vector<double>& values) {
  DistributionSummary s;
  s.count = values.size();
  if (values.empty()) return s;
  sort_doubles(values);
  // Sum in sorted order so the mean does not depend on the order jobs finished in.
  double total = 0.0;
  for (double v : values) total += v;
  s.mean = total / static_cast<double>(values.size());
  s.p50 = nearest_rank(values, 50);
  s.p90 = nearest_rank(values, 90);
  s.p95 = nearest_rank(values, 95);
  s.p99 = nearest_rank(values, 99);
  s.max = values.back();
  return s;
}

nlohmann::json DistributionSummary::to_json() const {
  if (count == 0) {
    return {{"count", 0},     {"mean", nullptr}, {"p50", nullptr}, {"p90", nullptr},
            {"p95", nullptr}, {"p99", nullptr},  {"max", nullptr}};
  }
  return {{"count", count}, {"mean", mean}, {"p50", p50}, {"p90", p90},
          {"p95", p95},     {"p99", p99},   {"max", max}};
}

}  // namespace gpumux
