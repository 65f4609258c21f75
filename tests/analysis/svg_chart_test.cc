#include "analysis/report/svg_chart.h"
#include "analysis/output/xml_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpumux {
namespace {

// A plain line: no marks, no band.
ChartSeries line(std::string name, std::vector<ChartPoint> points) {
  ChartSeries s;
  s.name = std::move(name);
  s.points = std::move(points);
  return s;
}

std::size_t count_occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The numbers of every polyline's points attribute, as (x, y) pixel pairs. Plain string search:
// libstdc++'s std::regex recurses once per character and overflows the stack on long attributes.
std::vector<std::pair<double, double>> polyline_points(const std::string& svg) {
  std::vector<std::pair<double, double>> out;
  const std::string open = "points=\"";
  for (auto at = svg.find(open); at != std::string::npos; at = svg.find(open, at)) {
    at += open.size();
    const auto close = svg.find('"', at);
    std::istringstream in(svg.substr(at, close - at));
    std::string pair;
    while (in >> pair) {
      const auto comma = pair.find(',');
      out.push_back({std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1))});
    }
    at = close;
  }
  return out;
}

TEST(SvgChart, EscapesEveryTextItPrints) {
  EXPECT_EQ(xml_text("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  ChartSpec spec;
  spec.title = "<script>alert(1)</script>";
  spec.x_label = "x & y";
  spec.y_label = "\"quoted\"";
  spec.series = {line("tenant <a>", {{0, 1}, {1, 2}})};
  const std::string svg = svg_chart(spec);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("x &amp; y"), std::string::npos);
  EXPECT_NE(svg.find("&quot;quoted&quot;"), std::string::npos);
  EXPECT_NE(svg.find("tenant &lt;a&gt;"), std::string::npos);
}

TEST(SvgChart, AxesCoverTheDataWithNiceTicks) {
  EXPECT_EQ(nice_ticks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1.0}));
  EXPECT_EQ(nice_ticks(0, 3600, 6), (std::vector<double>{0, 1000, 2000, 3000}));
  EXPECT_EQ(nice_ticks(-5, 5, 4), (std::vector<double>{-5, 0, 5}));
  EXPECT_EQ(short_number(0.2), "0.2");
  EXPECT_EQ(short_number(1500), "1500");
  EXPECT_EQ(short_number(2.5e9), "2.500e+09");
  EXPECT_EQ(short_number(-0.0), "0");

  ChartSpec spec;
  spec.width = 600;
  spec.height = 300;
  spec.series = {line("a", {{100, 3}, {200, 7}, {300, 5}})};
  const std::string svg = svg_chart(spec);
  // y starts at 0 for non-negative data and ends at the tick above the maximum (8); x spans
  // exactly the data: 100 at the left edge (64 px), 300 at the right (width - 16).
  EXPECT_NE(svg.find(">8</text>"), std::string::npos);
  EXPECT_NE(svg.find(">0</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">10</text>"), std::string::npos);
  const auto points = polyline_points(svg);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_DOUBLE_EQ(points[0].first, 64.0);
  EXPECT_DOUBLE_EQ(points[2].first, 584.0);
  const double bottom = 300 - 44, top = 52;
  EXPECT_NEAR(points[1].second, bottom - 7.0 / 8.0 * (bottom - top), 0.06);
  // A fixed range clamps points outside it to the frame.
  spec.y_min = 0.0;
  spec.y_max = 4.0;
  const auto clamped = polyline_points(svg_chart(spec));
  EXPECT_DOUBLE_EQ(clamped[1].second, top);
}

TEST(SvgChart, StepChartHoldsEachValueUntilTheNextPoint) {
  ChartSpec spec;
  spec.step = true;
  spec.series = {line("cdf", {{0, 0}, {10, 0.5}, {20, 1}})};
  const auto points = polyline_points(svg_chart(spec));
  ASSERT_EQ(points.size(), 5u);  // each step adds a corner at the old height
  EXPECT_DOUBLE_EQ(points[1].second, points[0].second);
  EXPECT_DOUBLE_EQ(points[1].first, points[2].first);
}

TEST(SvgChart, DownsamplingBoundsThePointsAndKeepsEndsAndSpikes) {
  std::vector<ChartPoint> series;
  for (int i = 0; i < 1'000'000; ++i) series.push_back({double(i), i == 500'123 ? 99.0 : 1.0});
  const auto small = downsample(series, 2000);
  EXPECT_LE(small.size(), 2000u);
  EXPECT_GE(small.size(), 1000u);
  EXPECT_EQ(small.front().x, 0.0);
  EXPECT_EQ(small.back().x, 999'999.0);
  EXPECT_TRUE(std::any_of(small.begin(), small.end(), [](auto p) { return p.y == 99.0; }));
  EXPECT_TRUE(std::is_sorted(small.begin(), small.end(), [](auto a, auto b) { return a.x < b.x; }));
  EXPECT_EQ(downsample({{0, 1}, {1, 2}}, 2000).size(), 2u);

  // The chart itself draws at most kMaxChartPoints per series, whatever it is given.
  ChartSpec spec;
  spec.series = {line("big", series)};
  const std::string svg = svg_chart(spec);
  EXPECT_LE(polyline_points(svg).size(), kMaxChartPoints);
  EXPECT_LT(svg.size(), 40'000u);
}

TEST(SvgChart, CdfPointsAreBoundedStepsFromZeroToOne) {
  const auto few = cdf_points({3, 1, 2, 2}, 100);
  ASSERT_EQ(few.size(), 4u);
  EXPECT_EQ(few[0].x, 1.0);
  EXPECT_EQ(few[0].y, 0.0);
  EXPECT_EQ(few[1].y, 0.25);
  EXPECT_EQ(few[2].x, 2.0);
  EXPECT_EQ(few[2].y, 0.75);
  EXPECT_EQ(few[3].y, 1.0);
  std::vector<double> many;
  for (int i = 0; i < 100'000; ++i) many.push_back(std::fmod(i * 7919.0, 100'003.0));
  const auto bounded = cdf_points(many, 2000);
  EXPECT_LE(bounded.size(), 2000u);
  EXPECT_EQ(bounded.back().y, 1.0);
  EXPECT_TRUE(std::is_sorted(bounded.begin(), bounded.end(),
                             [](auto a, auto b) { return a.x < b.x || a.y < b.y; }));
  EXPECT_TRUE(cdf_points({NAN, INFINITY}, 10).empty());
}

TEST(SvgChart, EmptySeriesGiveANoDataPanel) {
  ChartSpec spec;
  spec.title = "JCT CDF";
  spec.no_data_reason = "no data: no finished job";
  spec.series = {line("a", {}), line("b", {{NAN, 1}})};
  const std::string svg = svg_chart(spec);
  EXPECT_NE(svg.find("class=\"no-data\">no data: no finished job</text>"), std::string::npos);
  EXPECT_NE(svg.find("JCT CDF"), std::string::npos);
  EXPECT_EQ(svg.find("<polyline"), std::string::npos);
  EXPECT_EQ(count_occurrences(svg, "<svg"), 1u);
  EXPECT_EQ(count_occurrences(svg, "</svg>"), 1u);
  spec.series.clear();
  EXPECT_NE(svg_chart(spec).find("no-data"), std::string::npos);
  // One point still gets visible axes (the range is widened around it).
  spec.series = {line("one", {{5, 5}})};
  const std::string single = svg_chart(spec);
  EXPECT_EQ(single.find("no-data"), std::string::npos);
  EXPECT_EQ(single.find("nan"), std::string::npos);
  // All zeros (a count that never rose) get an axis from 0 to 1, never a negative tick.
  spec.series = {line("zeros", {{0, 0}, {10, 0}})};
  const std::string zeros = svg_chart(spec);
  EXPECT_NE(zeros.find(">1</text>"), std::string::npos);
  EXPECT_EQ(zeros.find(">-"), std::string::npos);
}

TEST(SvgChart, SameChartSameBytes) {
  ChartSpec spec;
  spec.title = "t";
  spec.series = {line("a", {{0, 0.1}, {1, 0.3}}), line("b", {{0, 0.2}, {2, 0.4}})};
  EXPECT_EQ(svg_chart(spec), svg_chart(spec));
  EXPECT_EQ(count_occurrences(svg_chart(spec), "<polyline"), 2u);
}

}  // namespace
}  // namespace gpumux
