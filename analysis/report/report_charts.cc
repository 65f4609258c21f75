#include "analysis/report/report_charts.h"

#include <algorithm>
#include <utility>

#include "analysis/report/seed_series.h"

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
    std::vector<const std::vector<ChartPoint>*> seeds;
    for (const auto& run : v.runs) {
      if (run.has_timeseries) seeds.push_back(&(run.*member));
    }
    spec.series.push_back(seed_mean_series(v.label, seeds));
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
    std::vector<const std::vector<ChartPoint>*> seeds;
    for (const auto& run : v.runs) {
      if (run.*member) seeds.push_back(&*(run.*member));
    }
    if (!seeds.empty()) spec.series.push_back(seed_mean_series(v.label, seeds));
  }
  return spec;
}

CdfChart cdf_chart(const std::vector<ReportVariant>& variants, std::string title,
                   std::string x_label, std::vector<double> RunFolder::*member, bool log_x) {
  CdfChart out;
  ChartSpec& spec = out.spec;
  spec.log_x = log_x;
  bool any_positive = false;
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
    const auto at_zero =
        std::count_if(pooled.begin(), pooled.end(), [](double x) { return x <= 0; });
    if (log_x && at_zero > 0) {
      out.at_left_edge.push_back(v.label + " " + std::to_string(at_zero) + " of " +
                                 std::to_string(pooled.size()));
    }
    any_positive =
        any_positive || std::any_of(pooled.begin(), pooled.end(), [](double x) { return x > 0; });
    spec.series.push_back({v.label, cdf_points(std::move(pooled), kMaxChartPoints), {}, {}});
  }
  // Without a value above 0 the chart is linear (svg_chart.h); its label says which.
  if (log_x && any_positive) {
    spec.x_label += ", log scale";
  } else {
    out.at_left_edge.clear();
  }
  return out;
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
    spec.series.push_back({v.label, downsample(series, kMaxChartPoints), {}, {}});
  }
  return spec;
}

std::string seed_band_caption(const std::vector<ReportVariant>& variants) {
  const bool several = std::any_of(variants.begin(), variants.end(), [](const ReportVariant& v) {
    return std::count_if(v.runs.begin(), v.runs.end(),
                         [](const RunFolder& r) { return r.has_timeseries; }) > 1;
  });
  if (!several) return "";
  return "Variants with several seeds: the line is the mean over the seeds and the shaded band "
         "spans the lowest to the highest seed, at every time any seed sampled (each seed holding "
         "its last sample), within the span every seed covers.";
}

}  // namespace gpumux
