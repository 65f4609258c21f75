#include "analysis/report/report_charts.h"

#include <utility>

namespace gpumux {

using nlohmann::json;

ChartSpec over_time_chart(const std::vector<ReportVariant>& variants, std::string title,
                          std::string y_label, std::vector<ChartPoint> RunFolder::*member) {
  ChartSpec spec;
  spec.title = std::move(title);
  spec.x_label = "simulated time (s)";
  spec.y_label = std::move(y_label);
  spec.no_data_reason = "no data: no timeseries.csv in these runs";
  for (const auto& v : variants) {
    const RunFolder& run = v.runs.front();
    spec.series.push_back({v.label, run.*member});
  }
  return spec;
}

ChartSpec faults_over_time_chart(const std::vector<ReportVariant>& variants, std::string title,
                                 std::optional<std::vector<ChartPoint>> RunFolder::*member) {
  ChartSpec spec;
  spec.title = std::move(title);
  spec.x_label = "simulated time (s)";
  spec.y_label = "count so far";
  spec.step = true;
  spec.no_data_reason = "no data: the timeseries.csv files have no such column";
  for (const auto& v : variants) {
    const auto& series = v.runs.front().*member;
    if (series) spec.series.push_back({v.label, *series});
  }
  return spec;
}

ChartSpec cdf_chart(const std::vector<ReportVariant>& variants, std::string title,
                    std::string x_label, std::vector<double> RunFolder::*member) {
  ChartSpec spec;
  spec.title = std::move(title);
  spec.x_label = std::move(x_label);
  spec.y_label = "share of finished jobs";
  spec.step = true;
  spec.y_min = 0.0;
  spec.y_max = 1.0;
  spec.no_data_reason = "no data: no finished job in jobs.csv (or no jobs.csv)";
  for (const auto& v : variants) {
    std::vector<double> pooled;
    for (const auto& run : v.runs)
      pooled.insert(pooled.end(), (run.*member).begin(), (run.*member).end());
    spec.series.push_back({v.label, cdf_points(std::move(pooled), kMaxChartPoints)});
  }
  return spec;
}

ChartSpec request_cdf_chart(const std::vector<ReportVariant>& variants) {
  ChartSpec spec;
  spec.title = "Request-latency CDF";
  spec.x_label = "request latency (ms)";
  spec.y_label = "share of served requests";
  spec.step = true;
  spec.y_min = 0.0;
  spec.y_max = 1.0;
  spec.no_data_reason = "no data: no request served (or a summary.json without latency_cdf_ms)";
  for (const auto& v : variants) {
    const json* points = json_find(v.runs.front().summary["metrics"], "/requests/latency_cdf_ms");
    if (points == nullptr || !points->is_array()) continue;
    std::vector<ChartPoint> series;
    for (const json& p : *points) {
      if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number()) {
        series.push_back({p[0].get<double>(), p[1].get<double>()});
      }
    }
    spec.series.push_back({v.label, downsample(series, kMaxChartPoints)});
  }
  return spec;
}

}  // namespace gpumux
