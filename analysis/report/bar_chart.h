// Horizontal bar charts for the HTML report: one bar per variant (its mean over the seeds) with
// an error bar over its 95% interval, the variants' labels on the left so that long ones stay
// readable. Bars take the colours of the variants' lines (Bar::color, series_color in
// svg_chart.h).
// Deterministic, escaped text, as svg_chart.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpumux {

struct Bar {
  std::string label;
  std::optional<double> mean;       // absent: "n/a" at the axis, no bar
  std::optional<double> low, high;  // the interval; absent (one seed): no error bar
  std::size_t n = 0;                // seeds with a value
  std::size_t color = 0;            // series_color(color): the variant's line colour
  bool clipped = false;             // the interval was cut to the metric's domain
};

struct BarChartSpec {
  std::string title;
  std::string x_label;  // the value axis
  std::vector<Bar> bars;
  int width = 420;  // px, at least (long labels widen it); the height follows from the bars
};

// The chart as one <svg> element: bars from 0 to the mean (class "bar"), error bars with caps
// (class "error-bar"), an axis from min(0, lowest) to max(0, highest) with nice ticks.
std::string svg_bar_chart(const BarChartSpec& spec);

}  // namespace gpumux
