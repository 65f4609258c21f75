// The charts of `gpumux report` built from what report_inputs.h read: one series per variant,
// each downsampled to at most kMaxChartPoints points (svg_chart.h). Time series are the mean
// over a variant's seeds with a band from the lowest to the highest seed (seed_series.h; one
// seed: its line); job CDFs pool the finished jobs of every seed. A chart with no series says
// why (its no_data_reason) instead of drawing empty axes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/report/report_inputs.h"
#include "analysis/report/svg_chart.h"

namespace gpumux {

// One series per variant from its runs' `member`, over simulated time (s).
ChartSpec over_time_chart(const std::vector<ReportVariant>& variants, std::string title,
                          std::string y_label, std::vector<ChartPoint> RunFolder::*member);
// A cumulative fault count over time, as steps; runs whose timeseries.csv lacks the column are
// left out (a variant with none of them has no line).
ChartSpec faults_over_time_chart(const std::vector<ReportVariant>& variants, std::string title,
                                 std::optional<std::vector<ChartPoint>> RunFolder::*member);

// A CDF and what its log axis leaves at the left edge.
struct CdfChart {
  ChartSpec spec;
  // Per variant with jobs: "<label> <k> of <n>" for the k jobs at 0 s or less, drawn at the
  // left edge of the log axis (empty when no variant has any).
  std::vector<std::string> at_left_edge;
};

// The CDF of a per-job quantity over the finished jobs of every seed, y in [0, 1]; with `log_x`
// a logarithmic time axis (values <= 0 at its left edge, counted in at_left_edge; ", log scale"
// added to the x label), linear when no value is above 0.
CdfChart cdf_chart(const std::vector<ReportVariant>& variants, std::string title,
                   std::string x_label, std::vector<double> RunFolder::*member, bool log_x);
// Request-latency CDFs from summary.json's `metrics.requests.latency_cdf_ms` (the first seed's
// run: the points are bins of a histogram, not single requests, so seeds are not pooled).
ChartSpec request_cdf_chart(const std::vector<ReportVariant>& variants);

// The caption of the time-series charts: what the line and the band are, when some variant has
// several seeds with a timeseries.csv; empty otherwise.
std::string seed_band_caption(const std::vector<ReportVariant>& variants);

}  // namespace gpumux
