// One line per variant from the same series of several seeds: the mean over the seeds at each
// time, with a band from the lowest to the highest seed (report_charts.h, the time-series
// charts of `gpumux report`).
//
// The common grid is every time any seed sampled, within the span every seed covers (from the
// latest first sample to the earliest last one: a seed's series says nothing past its own run,
// so the line ends where the shortest seed's does). At a grid time each seed's value is its last
// sample at or before it (a sampled state holds until the next sample). The line is then
// downsampled as every line is (downsample(), svg_chart.h) and the band kept at the same times.
#pragma once

#include <string>
#include <vector>

#include "analysis/report/svg_chart.h"

namespace gpumux {

// `seeds` in seed order, each ordered by time. One seed: its points (downsampled), no band. No
// seed, or no time every seed covers: no points. Non-finite points are dropped first.
ChartSeries seed_mean_series(std::string name,
                             const std::vector<const std::vector<ChartPoint>*>& seeds);

}  // namespace gpumux
