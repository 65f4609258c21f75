// The charts of `gpumux report` built from what report_inputs.h read: one series per variant,
// each downsampled to at most kMaxChartPoints points (svg_chart.h). Time series come from a
// variant's first run (its first seed); job CDFs pool the finished jobs of every seed. A chart with
// no series says why (its no_data_reason) instead of drawing empty axes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/report/report_inputs.h"
#include "analysis/report/svg_chart.h"

namespace gpumux {

// One series per variant from the first run's `member`, over simulated time (s).
ChartSpec over_time_chart(const std::vector<ReportVariant>& variants, std::string title,
                          std::string y_label, std::vector<ChartPoint> RunFolder::*member);
// A cumulative fault count over time, as steps; variants whose timeseries.csv lacks the column
// are left out.
ChartSpec faults_over_time_chart(const std::vector<ReportVariant>& variants, std::string title,
                                 std::optional<std::vector<ChartPoint>> RunFolder::*member);
// The CDF of a per-job quantity over the finished jobs of every seed, y in [0, 1].
ChartSpec cdf_chart(const std::vector<ReportVariant>& variants, std::string title,
                    std::string x_label, std::vector<double> RunFolder::*member);
// Request-latency CDFs from summary.json's `metrics.requests.latency_cdf_ms` (the first seed's
// run: the points are bins of a histogram, not single requests, so seeds are not pooled).
ChartSpec request_cdf_chart(const std::vector<ReportVariant>& variants);

}  // namespace gpumux
