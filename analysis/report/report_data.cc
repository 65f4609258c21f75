#include "analysis/report/report_data.h"

#include <cmath>
#include <map>
#include <sstream>

#include "analysis/output/number_text.h"

namespace gpumux {

namespace {

std::string optional_number(const std::optional<double>& v) { return v ? csv_number(*v) : ""; }

std::string line_csv(const ChartSpec& spec) {
  std::ostringstream o;
  o << "variant,kind,x,y,band_low,band_high\n";
  for (const auto& s : spec.series) {
    const std::string name = csv_field(s.name);
    // The band is kept at the line's times (seed_series.h); drawn points are the line's,
    // downsampled as svg_chart draws them.
    std::vector<ChartPoint> points;
    for (const auto& p : s.points) {
      if (std::isfinite(p.x) && std::isfinite(p.y)) points.push_back(p);
    }
    points = downsample(points, kMaxChartPoints);
    std::size_t b = 0;
    for (const auto& p : points) {
      o << name << ",line," << csv_number(p.x) << "," << csv_number(p.y) << ",";
      while (b < s.band.size() && s.band[b].x < p.x) ++b;
      if (b < s.band.size() && s.band[b].x == p.x) {
        o << csv_number(s.band[b].low) << "," << csv_number(s.band[b].high);
      } else {
        o << ",";
      }
      o << "\n";
    }
    for (const auto& m : s.marks) {
      o << name << ",mark," << csv_number(m.x) << "," << csv_number(m.y) << ",,\n";
    }
  }
  return o.str();
}

std::string bar_csv(const BarChartSpec& spec) {
  std::ostringstream o;
  o << "variant,metric,mean,ci95_low,ci95_high,n,clipped\n";
  for (const auto& b : spec.bars) {
    o << csv_field(b.label) << "," << csv_field(spec.title) << "," << optional_number(b.mean) << ","
      << optional_number(b.low) << "," << optional_number(b.high) << "," << b.n << ","
      << (b.clipped ? 1 : 0) << "\n";
  }
  return o.str();
}

}  // namespace

std::string figure_stem(const std::string& title) {
  std::string stem;
  for (char c : title) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (word || (c >= 'A' && c <= 'Z')) {
      stem += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    } else if (!stem.empty() && stem.back() != '-') {
      stem += '-';
    }
  }
  while (!stem.empty() && stem.back() == '-') stem.pop_back();
  return stem.empty() ? "figure" : stem;
}

std::vector<FigureFile> figure_files(const std::vector<ReportFigure>& figures) {
  std::vector<FigureFile> files;
  std::map<std::string, int> uses;
  for (const auto& f : figures) {
    // Bars are named apart from a line chart of the same title (the allocation ratio is both).
    const std::string stem = (f.bars ? "bars-" : "") + figure_stem(f.title());
    const int n = ++uses[stem];
    std::string name = n == 1 ? stem : stem + "-" + std::to_string(n);
    // A numbered name may itself be a title's stem ("x-2"): count on until free.
    while (n > 1 && uses.count(name) != 0) name += "-" + std::to_string(n);
    if (n > 1) uses[name] = 1;
    files.push_back({name + ".csv", f.chart ? line_csv(*f.chart) : bar_csv(*f.bars)});
  }
  return files;
}

}  // namespace gpumux
