// The data behind each figure of a report (`gpumux report --data DIR`): one tidy CSV per figure,
// so that a figure can be drawn again with other tools (pandas, matplotlib, R).
//
// A line chart's file has the columns variant,kind,x,y,band_low,band_high: one row per point
// drawn (after downsampling: the points of the page), kind "line", or "mark" for a marked point
// (a plan's answer); band_low and band_high the shaded range at x (several seeds: the lowest and
// highest seed), empty where there is none. x and y are in the chart's units (its axis labels);
// a CDF's x at 0 is written as 0 even where the log axis draws it at the left edge. A bar
// chart's file has variant,metric,mean,ci95_low,ci95_high,n: one row per variant (empty fields
// for n/a, and for the interval of a single seed). Numbers as compare.csv writes them
// (csv_number). Files are named after the figure's title: lower case, every run of other
// characters than letters and digits a '-', ".csv" (the JCT CDF: jct-cdf.csv), a bar chart's
// with "bars-" before (bars-jct-p95-s.csv); a name met twice gets "-2", "-3", ... in page order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/report/bar_chart.h"
#include "analysis/report/svg_chart.h"

namespace gpumux {

// One figure of the page: a line chart or a bar chart.
struct ReportFigure {
  std::optional<ChartSpec> chart;
  std::optional<BarChartSpec> bars;
  // False for a line chart with no data: left off the page and listed at its end (its data
  // file is still written, a header alone).
  bool drawn = true;
  const std::string& title() const { return chart ? chart->title : bars->title; }
};

struct FigureFile {
  std::string name;  // e.g. "jct-cdf.csv"
  std::string csv;
};

// The file of each figure, in page order.
std::vector<FigureFile> figure_files(const std::vector<ReportFigure>& figures);

// The file name stem of a title ("JCT p95 (s)" -> "jct-p95-s"; "figure" when nothing is left).
std::string figure_stem(const std::string& title);

}  // namespace gpumux
