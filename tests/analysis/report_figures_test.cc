// The figures of `gpumux report` beyond plain lines: the mean over seeds with its band
// (seed_series.h), log time axes, bar charts with error bars (bar_chart.h) and the data files of
// --data (report_data.h).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/report/bar_chart.h"
#include "analysis/report/report_data.h"
#include "analysis/report/seed_series.h"
#include "analysis/report/svg_chart.h"

namespace gpumux {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The x tick labels of a line chart: the texts centred under the axis.
std::vector<std::string> x_tick_labels(const std::string& svg) {
  std::vector<std::string> out;
  const std::string open = "text-anchor=\"middle\">";
  for (auto at = svg.find(open); at != std::string::npos; at = svg.find(open, at)) {
    at += open.size();
    out.push_back(svg.substr(at, svg.find('<', at) - at));
  }
  return out;
}

TEST(SeedSeries, OneSeedIsItsOwnLineWithoutABand) {
  const std::vector<ChartPoint> a = {{0, 1}, {10, 2}, {20, 3}};
  const ChartSeries s = seed_mean_series("v", {&a});
  EXPECT_EQ(s.name, "v");
  ASSERT_EQ(s.points.size(), 3u);
  EXPECT_EQ(s.points[1].y, 2.0);
  EXPECT_TRUE(s.band.empty());
}

TEST(SeedSeries, MeanAndRangeOnTheUnionOfTimesWithinTheCommonSpan) {
  // Seed a samples at 0, 10, 20, 30; seed b at 5, 15, 25 (it starts later and ends earlier).
  const std::vector<ChartPoint> a = {{0, 0}, {10, 4}, {20, 8}, {30, 100}};
  const std::vector<ChartPoint> b = {{5, 2}, {15, 6}, {25, 0}};
  const ChartSeries s = seed_mean_series("v", {&a, &b});
  // Grid: 5, 10, 15, 20, 25 (5..25 is the span both cover); a holds 0 at 5, b holds 2 at 10.
  const std::vector<double> xs = {5, 10, 15, 20, 25};
  const std::vector<double> a_at = {0, 4, 4, 8, 8}, b_at = {2, 2, 6, 6, 0};
  ASSERT_EQ(s.points.size(), xs.size());
  ASSERT_EQ(s.band.size(), xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    EXPECT_EQ(s.points[i].x, xs[i]);
    EXPECT_DOUBLE_EQ(s.points[i].y, (a_at[i] + b_at[i]) / 2) << xs[i];
    EXPECT_EQ(s.band[i].x, xs[i]);
    EXPECT_EQ(s.band[i].low, std::min(a_at[i], b_at[i])) << xs[i];
    EXPECT_EQ(s.band[i].high, std::max(a_at[i], b_at[i])) << xs[i];
  }
  // Seeds that share no time give no line.
  const std::vector<ChartPoint> late = {{40, 1}};
  EXPECT_TRUE(seed_mean_series("v", {&a, &late}).points.empty());
  const std::vector<ChartPoint> none;
  EXPECT_TRUE(seed_mean_series("v", {&a, &none}).points.empty());
}

TEST(SeedSeries, LongSeriesAreDownsampledWithTheBandAtTheLinesTimes) {
  std::vector<ChartPoint> a, b;
  for (int i = 0; i < 50'000; ++i) {
    a.push_back({double(i), double(i % 7)});
    b.push_back({double(i), double(i % 11)});
  }
  const ChartSeries s = seed_mean_series("v", {&a, &b});
  EXPECT_LE(s.points.size(), kMaxChartPoints);
  ASSERT_EQ(s.band.size(), s.points.size());
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const int t = static_cast<int>(s.points[i].x);
    EXPECT_EQ(s.band[i].x, s.points[i].x);
    EXPECT_EQ(s.band[i].low, std::min(t % 7, t % 11));
    EXPECT_EQ(s.band[i].high, std::max(t % 7, t % 11));
  }
}

TEST(SvgChart, BandIsAShadedPolygonUnderTheLineAndInTheLegend) {
  ChartSpec spec;
  ChartSeries s{"v", {{0, 1}, {10, 2}}, {}, {{0, 0.5, 1.5}, {10, 1, 4}}};
  spec.series = {s};
  const std::string svg = svg_chart(spec);
  EXPECT_EQ(count(svg, "<polygon class=\"band\""), 1u);
  EXPECT_LT(svg.find("<polygon class=\"band\""), svg.find("<polyline"));
  EXPECT_NE(svg.find("fill-opacity=\"0.2\"/><line"), std::string::npos);  // legend swatch
  // The y axis covers the band's top (4), not only the line's (2).
  EXPECT_NE(svg.find(">4</text>"), std::string::npos);
  // No band: no polygon, as before.
  spec.series[0].band.clear();
  EXPECT_EQ(svg_chart(spec).find("<polygon"), std::string::npos);
}

TEST(SvgChart, LogAxisHasDecadeTicksAndPutsZeroAtTheLeftEdge) {
  ChartSpec spec;
  spec.log_x = true;
  spec.step = true;
  spec.series = {{"jct", {{0, 0}, {0, 0.25}, {3, 0.5}, {250, 0.75}, {42000, 1}}, {}, {}}};
  const std::string svg = svg_chart(spec);
  // 3 .. 42000 spans the decades 1 .. 100000.
  std::vector<std::string> ticks = x_tick_labels(svg);
  for (const char* t : {"1", "10", "100", "1000", "10000", "100000"}) {
    EXPECT_NE(std::find(ticks.begin(), ticks.end(), t), ticks.end()) << t;
  }
  EXPECT_EQ(std::find(ticks.begin(), ticks.end(), "20000"), ticks.end());
  // The points at 0 sit on the left edge (x = 64 px); 100 is 2/5 of the way from 1 to 100000.
  const std::string open = "points=\"";
  const auto at = svg.find(open) + open.size();
  std::istringstream points(svg.substr(at, svg.find('"', at) - at));
  std::string first;
  points >> first;
  EXPECT_EQ(first.substr(0, first.find(',')), "64.0");
  const double left = 64, right = 560 - 16;
  // Ticks are drawn as lines at px(t): find the one of 100.
  std::ostringstream expected;
  expected.setf(std::ios::fixed);
  expected.precision(1);
  expected << "x1=\"" << left + 0.4 * (right - left) << "\"";
  EXPECT_NE(svg.find(expected.str()), std::string::npos) << expected.str();

  // Under two decades the ticks add 2 and 5 times each decade.
  spec.series = {{"q", {{2, 0.5}, {40, 1}}, {}, {}}};
  ticks = x_tick_labels(svg_chart(spec));
  for (const char* t : {"1", "2", "5", "10", "20", "50", "100"}) {
    EXPECT_NE(std::find(ticks.begin(), ticks.end(), t), ticks.end()) << t;
  }
  // Nothing above 0: a linear axis (no decade of 0 exists).
  spec.series = {{"zeros", {{0, 0}, {0, 1}}, {}, {}}};
  const std::string zeros = svg_chart(spec);
  EXPECT_EQ(zeros.find("nan"), std::string::npos);
  EXPECT_EQ(zeros.find("inf"), std::string::npos);
}

TEST(BarChart, BarsToTheMeanErrorBarsOverTheIntervalAndNaWithoutAMean) {
  BarChartSpec spec;
  spec.title = "JCT p95 (s)";
  spec.x_label = "JCT p95 (s), mean over the seeds";
  spec.bars = {{"exclusive", 300.0, 280.0, 320.0, 3, 0},
               {"mps, queue=fifo", 150.0, std::nullopt, std::nullopt, 1, 2},
               {"<odd>", std::nullopt, std::nullopt, std::nullopt, 0, 1}};
  const std::string svg = svg_bar_chart(spec);
  EXPECT_EQ(count(svg, "<rect class=\"bar\""), 2u);
  EXPECT_EQ(count(svg, "class=\"error-bar\""), 1u);
  EXPECT_NE(svg.find(">n/a</text>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;odd&gt;"), std::string::npos);
  // The axis reaches past the highest interval end (320): its last tick is 400.
  EXPECT_NE(svg.find(">400</text>"), std::string::npos);
  // The first bar is twice as long as the second (300 vs 150 from the same zero).
  auto width_of = [&](std::size_t nth) {
    std::size_t at = 0;
    for (std::size_t i = 0; i <= nth; ++i) at = svg.find("<rect class=\"bar\"", at + 1);
    const auto w = svg.find("width=\"", at) + 7;
    return std::stod(svg.substr(w, svg.find('"', w) - w));
  };
  EXPECT_NEAR(width_of(0), 2 * width_of(1), 0.15);
  // Each bar in its variant's colour: the second in the third series colour.
  EXPECT_NE(svg.find(std::string("fill=\"") + series_color(2) + "\" fill-opacity=\"0.75\""),
            std::string::npos);
  EXPECT_EQ(svg.find(std::string("fill=\"") + series_color(1) + "\""), std::string::npos);
  EXPECT_EQ(svg, svg_bar_chart(spec));
  // Long labels widen the chart so that the bars keep their room.
  EXPECT_EQ(svg.rfind("<svg width=\"420\"", 0), 0u);
  spec.bars[0].label = std::string(40, 'x');
  EXPECT_EQ(svg_bar_chart(spec).rfind("<svg width=\"544\"", 0), 0u);
}

TEST(ReportData, FilesAreNamedAfterTheFigureAndHoldWhatIsDrawn) {
  EXPECT_EQ(figure_stem("JCT p95 (s)"), "jct-p95-s");
  EXPECT_EQ(figure_stem("Queueing-delay CDF"), "queueing-delay-cdf");
  EXPECT_EQ(figure_stem("(( ))"), "figure");
  ChartSpec line;
  line.title = "GPUs in use";
  line.series = {{"a,b", {{0, 1}, {60, 2.5}}, {{30, 7}}, {{0, 1, 1}, {60, 2, 3}}},
                 {"plain", {{0, 0.1}, {NAN, 1}}, {}, {}}};
  BarChartSpec bars;
  bars.title = "GPUs in use";
  bars.bars = {{"x", 2.0, 1.5, 2.5, 2, 0}, {"y", std::nullopt, std::nullopt, std::nullopt, 0, 1}};
  const auto files =
      figure_files({{line, std::nullopt}, {std::nullopt, bars}, {line, std::nullopt}});
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[2].name, "gpus-in-use-2.csv");
  EXPECT_EQ(files[0].name, "gpus-in-use.csv");
  EXPECT_EQ(files[1].name, "bars-gpus-in-use.csv");
  EXPECT_EQ(files[0].csv,
            "variant,kind,x,y,band_low,band_high\n"
            "\"a,b\",line,0,1,1,1\n"
            "\"a,b\",line,60,2.5,2,3\n"
            "\"a,b\",mark,30,7,,\n"
            "plain,line,0,0.1,,\n");
  EXPECT_EQ(files[1].csv,
            "variant,metric,mean,ci95_low,ci95_high,n,clipped\n"
            "x,GPUs in use,2,1.5,2.5,2,0\n"
            "y,GPUs in use,,,,0,0\n");
}

}  // namespace
}  // namespace gpumux
