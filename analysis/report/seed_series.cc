#include "analysis/report/seed_series.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpumux {

ChartSeries seed_mean_series(std::string name,
                             const std::vector<const std::vector<ChartPoint>*>& seeds) {
  ChartSeries out;
  out.name = std::move(name);
  std::vector<std::vector<ChartPoint>> finite;
  for (const auto* s : seeds) {
    std::vector<ChartPoint> points;
    for (const auto& p : *s) {
      if (std::isfinite(p.x) && std::isfinite(p.y)) points.push_back(p);
    }
    finite.push_back(std::move(points));
  }
  if (finite.empty()) return out;
  if (finite.size() == 1) {
    out.points = downsample(finite.front(), kMaxChartPoints);
    return out;
  }
  double from = -std::numeric_limits<double>::infinity();
  double to = std::numeric_limits<double>::infinity();
  for (const auto& s : finite) {
    if (s.empty()) return out;
    from = std::max(from, s.front().x);
    to = std::min(to, s.back().x);
  }
  std::vector<double> grid;
  for (const auto& s : finite) {
    for (const auto& p : s) {
      if (p.x >= from && p.x <= to) grid.push_back(p.x);
    }
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());

  std::vector<ChartPoint> mean;
  std::vector<ChartBandPoint> band;
  mean.reserve(grid.size());
  band.reserve(grid.size());
  std::vector<std::size_t> at(finite.size(), 0);  // per seed: its last sample <= t
  for (const double t : grid) {
    double sum = 0.0, low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < finite.size(); ++k) {
      const auto& s = finite[k];
      while (at[k] + 1 < s.size() && s[at[k] + 1].x <= t) ++at[k];
      const double y = s[at[k]].y;
      sum += y;
      low = std::min(low, y);
      high = std::max(high, y);
    }
    mean.push_back({t, sum / static_cast<double>(finite.size())});
    band.push_back({t, low, high});
  }
  out.points = downsample(mean, kMaxChartPoints);
  // The band at the line's times (the grid's times are distinct and sorted).
  for (const auto& p : out.points) {
    const auto i = std::lower_bound(grid.begin(), grid.end(), p.x) - grid.begin();
    out.band.push_back(band[static_cast<std::size_t>(i)]);
  }
  return out;
}

}  // namespace gpumux
