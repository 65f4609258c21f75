// Small, dependency-free SVG charts for the HTML report (html_report.h): line charts of series
// over time and step CDFs, with axes, ticks, labels and a legend.
//
// Output is deterministic text: the same chart gives byte-identical SVG (numbers are printed
// with a fixed format, never by locale). Text (titles, labels, series names) is escaped, so a
// scenario or tenant name cannot break the page. A chart with no points at all is a framed
// "no data" panel with its title and a reason, never an empty axis or a crash.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpumux {

struct ChartPoint {
  double x = 0.0;
  double y = 0.0;
};

// A shaded range around a series at x (e.g. the spread of several seeds).
struct ChartBandPoint {
  double x = 0.0;
  double low = 0.0;
  double high = 0.0;
};

struct ChartSeries {
  std::string name;
  std::vector<ChartPoint> points;  // in increasing x; non-finite points are dropped
  std::vector<ChartPoint> marks;   // drawn as circles in the series' colour (e.g. an answer)
  // Drawn under the line in the series' colour, lightly (class "band"), as steps on a step
  // chart; in increasing x, at most kMaxChartPoints points (not downsampled here: the caller
  // picks the same x as the line's); its legend swatch gets the shade too.
  std::vector<ChartBandPoint> band;
};

struct ChartSpec {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
  bool step = false;  // draw as a step function (each y holds until the next x), e.g. a CDF
  // A logarithmic x axis from the decade below the smallest positive x to the decade above the
  // largest, ticks at the decades (and at 2 and 5 times them when the axis spans two decades or
  // fewer). A point at x <= 0 is drawn at the left edge. No positive x at all: linear.
  bool log_x = false;
  // Fixed y range (e.g. [0, 1] for shares); absent: from the data, starting at 0 when the data
  // is non-negative.
  std::optional<double> y_min, y_max;
  std::string no_data_reason = "no data";  // shown when no series has a point
  int width = 560;                         // px
  int height = 300;                        // px
};

// Most points a chart draws per series; longer series are downsampled to it.
inline constexpr std::size_t kMaxChartPoints = 2000;

// The colour of the i-th series (colour-blind-friendly Okabe-Ito, cycling after 8), as
// "#rrggbb": line and bar charts give a variant the same colour.
const char* series_color(std::size_t i);

// A number for a tick label or a table: up to 4 significant digits, no exponent for
// |x| in [1e-3, 1e9); "-0" prints as "0".
std::string short_number(double x);

// About `target` evenly spaced "nice" tick values (steps of 1, 2 or 5 times a power of ten)
// covering [lo, hi]; lo < hi.
std::vector<double> nice_ticks(double lo, double hi, int target);

// At most `max_points` (>= 4) points of `points` (ordered by x), keeping the first and last and,
// in each of max_points / 2 - 1 buckets between them, the lowest and highest y in x order, so
// spikes survive. Returned unchanged when already short enough.
std::vector<ChartPoint> downsample(const std::vector<ChartPoint>& points, std::size_t max_points);

// The empirical CDF of `values` (any order; non-finite ones dropped) as step points
// (value, share of values <= it), at most `max_points` (>= 2) points: with more distinct values,
// the values at evenly spaced ranks (the last included).
std::vector<ChartPoint> cdf_points(std::vector<double> values, std::size_t max_points);

// Whether any series has a finite point or band point to draw (else svg_chart draws the
// "no data" panel).
bool chart_has_data(const ChartSpec& spec);

// The chart as one <svg> element (width x height px, with a viewBox).
std::string svg_chart(const ChartSpec& spec);

}  // namespace gpumux
