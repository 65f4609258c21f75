#include "analysis/report/plan_charts.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace gpumux {

namespace {

using nlohmann::json;

double number_at(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::nan("");
}

// The objective's value in one probe of plan.json (NaN when absent).
double objective_at(const json& probe, const std::string& objective) {
  if (!probe.contains("objectives") || !probe["objectives"].contains(objective)) {
    return std::nan("");
  }
  return number_at(probe["objectives"][objective], "value");
}

}  // namespace

std::vector<ChartSpec> plan_knee_charts(const json& plan) {
  std::vector<ChartSpec> charts;
  if (!plan.contains("objectives") || !plan.contains("models")) return charts;
  for (const auto& o : plan["objectives"]) {
    const bool relative = o.contains("relative_to");
    if (o.value("implicit", false) && !relative) continue;
    const std::string text = o.value("objective", "");
    ChartSpec spec;
    spec.title = text + " against cluster size";
    spec.x_label = "nodes";
    spec.y_label = o.value("metric", "");
    spec.no_data_reason = "no size produced a value";
    spec.width = 900;
    spec.height = 360;
    // Beyond twice the largest answer the curves are flat (the doubling's probes): cut there,
    // so the knee fills the chart.
    double x_limit = INFINITY;
    double largest_answer = 0;
    for (const auto& m : plan["models"]) {
      if (m.value("met", false)) largest_answer = std::max(largest_answer, number_at(m, "nodes"));
    }
    if (largest_answer > 0) x_limit = 2 * largest_answer;
    double lo_x = INFINITY, hi_x = -INFINITY, hi_y = 0;
    for (const auto& m : plan["models"]) {
      const std::string model = m.value("model", "");
      if (!m.contains("placements")) continue;
      const std::string answer_layout =
          m.contains("layout") && m["layout"].is_object() ? m["layout"].value("name", "") : "";
      for (const auto& pl : m["placements"]) {
        // A search stopped after one size (rejections no size cures) has no curve to draw.
        if (!pl.contains("probes") || pl["probes"].size() < 2) continue;
        // plan.json names a search's layout as a string (the model's answer: {name, ...}).
        const std::string layout = pl.contains("layout") && pl["layout"].is_string()
                                       ? pl["layout"].get<std::string>()
                                       : "";
        ChartSeries series;
        series.name =
            model + (layout.empty() ? "" : " " + layout) + "/" + pl.value("placement", "");
        for (const auto& p : pl["probes"]) {
          const ChartPoint point{number_at(p, "nodes"), objective_at(p, text)};
          if (point.x > x_limit) continue;
          series.points.push_back(point);
          if (std::isfinite(point.x) && std::isfinite(point.y)) {
            lo_x = std::min(lo_x, point.x);
            hi_x = std::max(hi_x, point.x);
            hi_y = std::max(hi_y, point.y);
          }
        }
        // The model's answer, on the placement (and layout) that gave it.
        const bool answer = m.value("met", false) &&
                            m.value("placement", "") == pl.value("placement", "") &&
                            layout == answer_layout && m["at_answer"].is_object();
        if (answer) {
          series.marks.push_back(
              {number_at(m["at_answer"], "nodes"), objective_at(m["at_answer"], text)});
          series.name += " (answer)";
        }
        std::sort(series.points.begin(), series.points.end(),
                  [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
        spec.series.push_back(std::move(series));
      }
    }
    // The bound: the limit, or factor x the exclusive answer's value (the scenario's seed).
    double bound = number_at(o, "limit");
    if (relative) bound *= number_at(o, "baseline");
    if (std::isfinite(bound) && std::isfinite(lo_x)) {
      spec.series.push_back({"objective " + text, {{lo_x, bound}, {hi_x, bound}}, {}, {}});
      // Far above the bound nothing is readable: show up to 4x it, values beyond at the top.
      if (bound > 0 && hi_y > 4 * bound) spec.y_max = 4 * bound;
    }
    charts.push_back(std::move(spec));
  }
  return charts;
}

ChartSpec plan_load_chart(const json& by_load) {
  ChartSpec spec;
  spec.title = "GPUs needed against load";
  spec.x_label = "load (arrival rate x)";
  spec.y_label = "GPUs";
  spec.no_data_reason = "no model met the objectives at any load";
  if (!by_load.contains("loads") || !by_load.contains("gpus_by_load")) return spec;
  const auto& loads = by_load["loads"];
  for (const auto& m : by_load["gpus_by_load"]) {
    ChartSeries series;
    series.name = m.value("model", "");
    for (std::size_t i = 0; i < loads.size() && i < m["gpus"].size(); ++i) {
      if (m["gpus"][i].is_number() && loads[i].is_number()) {
        series.points.push_back({loads[i].get<double>(), m["gpus"][i].get<double>()});
      }
    }
    std::sort(series.points.begin(), series.points.end(),
              [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    series.marks = series.points;
    spec.series.push_back(std::move(series));
  }
  return spec;
}

}  // namespace gpumux
