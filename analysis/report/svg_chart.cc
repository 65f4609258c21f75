#include "analysis/report/svg_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "analysis/output/xml_text.h"

namespace gpumux {

namespace {

// Colour-blind-friendly palette (Okabe-Ito); series beyond it cycle with a dash pattern.
constexpr std::array<const char*, 8> kColors = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                "#E69F00", "#56B4E9", "#000000", "#F0E442"};

std::string coordinate(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return std::string(buffer) == "-0.0" ? "0.0" : buffer;
}

struct Range {
  double lo = 0.0;
  double hi = 1.0;
};

// Widens an empty range so that a single value sits inside a visible axis.
Range widen(Range r) {
  if (r.hi > r.lo) return r;
  const double pad = r.lo == 0.0 ? 1.0 : std::abs(r.lo) * 0.5;
  return {r.lo - pad, r.hi + pad};
}

double nice_step(double lo, double hi, int target) {
  const double raw = (hi - lo) / std::max(1, target);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10.0 * magnitude;
}

// The ticks of a logarithmic axis over [lo, hi] (both powers of ten, lo < hi): the decades, and
// 2 and 5 times them when there are fewer than three decades.
std::vector<double> log_ticks(double lo, double hi) {
  const int first = static_cast<int>(std::lround(std::log10(lo)));
  const int last = static_cast<int>(std::lround(std::log10(hi)));
  std::vector<double> ticks;
  for (int k = first; k <= last; ++k) {
    // Through text, so that 10^-3 is the 0.001 a reader expects.
    char text[32];
    std::snprintf(text, sizeof text, "1e%d", k);
    const double decade = std::strtod(text, nullptr);
    ticks.push_back(decade);
    if (last - first < 3 && k < last) {
      for (double m : {2.0, 5.0}) {
        std::snprintf(text, sizeof text, "%.0fe%d", m, k);
        ticks.push_back(std::strtod(text, nullptr));
      }
    }
  }
  return ticks;
}

}  // namespace

const char* series_color(std::size_t i) { return kColors[i % kColors.size()]; }

std::string short_number(double x) {
  if (!std::isfinite(x)) return std::isnan(x) ? "n/a" : (x > 0 ? "inf" : "-inf");
  if (x == 0.0) return "0";
  char buffer[64];
  const double a = std::abs(x);
  if (a < 1e-3 || a >= 1e9) {
    std::snprintf(buffer, sizeof buffer, "%.3e", x);
    return buffer;
  }
  const int decimals = std::max(0, 3 - static_cast<int>(std::floor(std::log10(a))));
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, x);
  std::string s = buffer;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  const double step = nice_step(lo, hi, target);
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (int i = 0; i < 1000; ++i) {
    const double v = first + i * step;
    if (v > hi + step * 1e-9) break;
    // Rounded to 12 significant digits so that 3 x 0.2 is the 0.6 a reader expects.
    char text[32];
    std::snprintf(text, sizeof text, "%.12g", std::abs(v) < step * 1e-9 ? 0.0 : v);
    ticks.push_back(std::strtod(text, nullptr));
  }
  return ticks;
}

std::vector<ChartPoint> downsample(const std::vector<ChartPoint>& points, std::size_t max_points) {
  max_points = std::max<std::size_t>(max_points, 4);
  if (points.size() <= max_points) return points;
  const std::size_t inner = points.size() - 2;  // between the first and the last
  const std::size_t buckets = max_points / 2 - 1;
  std::vector<ChartPoint> out;
  out.reserve(max_points);
  out.push_back(points.front());
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t begin = 1 + b * inner / buckets;
    const std::size_t end = 1 + (b + 1) * inner / buckets;
    if (begin >= end) continue;
    std::size_t low = begin, high = begin;
    for (std::size_t i = begin; i < end; ++i) {
      if (points[i].y < points[low].y) low = i;
      if (points[i].y > points[high].y) high = i;
    }
    out.push_back(points[std::min(low, high)]);
    if (low != high) out.push_back(points[std::max(low, high)]);
  }
  out.push_back(points.back());
  return out;
}

std::vector<ChartPoint> cdf_points(std::vector<double> values, std::size_t max_points) {
  max_points = std::max<std::size_t>(max_points, 2);
  values.erase(
      std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
      values.end());
  std::vector<ChartPoint> out;
  if (values.empty()) return out;
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  out.push_back({values.front(), 0.0});
  // Share of values <= values[i], taken at the last copy of values[i].
  auto share_at = [&](std::size_t i) {
    const auto last = std::upper_bound(values.begin(), values.end(), values[i]);
    return static_cast<double>(last - values.begin()) / n;
  };
  const std::size_t steps = max_points - 1;
  // Evenly spaced ranks (or every value when there are few); equal values collapse to one step.
  const std::size_t count = std::min(values.size(), steps);
  for (std::size_t k = 1; k <= count; ++k) {
    const std::size_t rank = (k * values.size() + count - 1) / count;  // ceil(k * n / count)
    const std::size_t i = rank - 1;
    if (out.size() > 1 && out.back().x == values[i]) continue;
    out.push_back({values[i], share_at(i)});
  }
  return out;
}

bool chart_has_data(const ChartSpec& spec) {
  for (const auto& s : spec.series) {
    for (const auto& p : s.points) {
      if (std::isfinite(p.x) && std::isfinite(p.y)) return true;
    }
    for (const auto& b : s.band) {
      if (std::isfinite(b.x) && std::isfinite(b.low) && std::isfinite(b.high)) return true;
    }
  }
  return false;
}

std::string svg_chart(const ChartSpec& spec) {
  const double w = spec.width, h = spec.height;
  // The legend wraps into more rows when its items do not fit one; the plot starts below it.
  const auto legend_width = [](const ChartSeries& s) {
    return 34 + 6.5 * static_cast<double>(s.name.size());
  };
  int legend_rows = 1;
  {
    double x = 64;
    for (const auto& s : spec.series) {
      if (x > 64 && x + legend_width(s) > w - 16) {
        ++legend_rows;
        x = 64;
      }
      x += legend_width(s);
    }
  }
  const double left = 64, right = w - 16, top = 52 + 14.0 * (legend_rows - 1), bottom = h - 44;
  std::ostringstream o;
  o << "<svg width=\"" << spec.width << "\" height=\"" << spec.height << "\" viewBox=\"0 0 "
    << spec.width << ' ' << spec.height << "\" role=\"img\" aria-label=\"" << xml_text(spec.title)
    << "\" class=\"chart\">\n";
  o << "<rect x=\"0.5\" y=\"0.5\" width=\"" << spec.width - 1 << "\" height=\"" << spec.height - 1
    << "\" fill=\"#ffffff\" stroke=\"#cccccc\"/>\n";
  o << "<text x=\"" << coordinate(w / 2) << "\" y=\"20\" text-anchor=\"middle\" "
    << "font-size=\"14\" font-weight=\"bold\">" << xml_text(spec.title) << "</text>\n";

  // Finite points only, downsampled; ranges over all series.
  std::vector<ChartSeries> series;
  bool any = false;
  Range x{0, 0}, y{0, 0};
  // A log axis spans the positive x only; without any, the chart is linear.
  bool log_x = false;
  Range positive{0, 0};
  for (const auto& s : spec.series) {
    ChartSeries clean{s.name, {}, {}, {}};
    for (const auto& p : s.points) {
      if (std::isfinite(p.x) && std::isfinite(p.y)) clean.points.push_back(p);
    }
    for (const auto& p : s.marks) {
      if (std::isfinite(p.x) && std::isfinite(p.y)) clean.marks.push_back(p);
    }
    for (const auto& b : s.band) {
      if (std::isfinite(b.x) && std::isfinite(b.low) && std::isfinite(b.high)) {
        clean.band.push_back(b);
      }
    }
    clean.points = downsample(clean.points, kMaxChartPoints);
    const auto extend = [&](double at, double plo, double phi) {
      if (!any) {
        x = {at, at};
        y = {plo, phi};
        any = true;
      }
      x = {std::min(x.lo, at), std::max(x.hi, at)};
      y = {std::min(y.lo, plo), std::max(y.hi, phi)};
      if (spec.log_x && at > 0) {
        positive =
            log_x ? Range{std::min(positive.lo, at), std::max(positive.hi, at)} : Range{at, at};
        log_x = true;
      }
    };
    for (const auto& p : clean.points) extend(p.x, p.y, p.y);
    for (const auto& b : clean.band) extend(b.x, std::min(b.low, b.high), std::max(b.low, b.high));
    series.push_back(std::move(clean));
  }
  if (!any) {
    o << "<text x=\"" << coordinate(w / 2) << "\" y=\"" << coordinate(h / 2)
      << "\" text-anchor=\"middle\" font-size=\"16\" fill=\"#666666\" class=\"no-data\">"
      << xml_text(spec.no_data_reason) << "</text>\n</svg>\n";
    return o.str();
  }

  x = widen(x);
  if (log_x) {
    // Whole decades, at least one.
    x = {std::pow(10.0, std::floor(std::log10(positive.lo) + 1e-9)),
         std::pow(10.0, std::ceil(std::log10(positive.hi) - 1e-9))};
    if (!(x.hi > x.lo)) x.hi = x.lo * 10.0;
  }
  if (y.lo >= 0.0 && !spec.y_min) y.lo = 0.0;
  if (spec.y_min) y.lo = *spec.y_min;
  if (spec.y_max) y.hi = *spec.y_max;
  // All zero (e.g. no fault so far): a count axis from 0 to 1, not around 0.
  if (y.lo == 0.0 && y.hi == 0.0 && !spec.y_min) y.hi = 1.0;
  y = widen(y);
  const std::vector<double> y_ticks = nice_ticks(y.lo, y.hi, 5);
  if (!spec.y_max && !y_ticks.empty() && y_ticks.back() < y.hi) {
    y.hi = y_ticks.back() + (y_ticks.size() > 1 ? y_ticks[1] - y_ticks[0] : 0.0);
  }
  const std::vector<double> y_axis_ticks = nice_ticks(y.lo, y.hi, 5);
  const std::vector<double> x_ticks = log_x ? log_ticks(x.lo, x.hi) : nice_ticks(x.lo, x.hi, 6);

  auto px = [&](double v) {
    if (!log_x) return left + (v - x.lo) / (x.hi - x.lo) * (right - left);
    if (v <= x.lo) return left;  // x <= 0 included: at the left edge
    return left + (std::log10(v) - std::log10(x.lo)) / (std::log10(x.hi) - std::log10(x.lo)) *
                      (right - left);
  };
  auto py = [&](double v) {
    const double c = std::clamp(v, y.lo, y.hi);
    return bottom - (c - y.lo) / (y.hi - y.lo) * (bottom - top);
  };

  // Grid, ticks and their labels.
  o << "<g font-size=\"11\" fill=\"#333333\">\n";
  for (double t : y_axis_ticks) {
    o << "<line x1=\"" << coordinate(left) << "\" y1=\"" << coordinate(py(t)) << "\" x2=\""
      << coordinate(right) << "\" y2=\"" << coordinate(py(t)) << "\" stroke=\"#eeeeee\"/><text x=\""
      << coordinate(left - 4) << "\" y=\"" << coordinate(py(t) + 4) << "\" text-anchor=\"end\">"
      << short_number(t) << "</text>\n";
  }
  for (double t : x_ticks) {
    o << "<line x1=\"" << coordinate(px(t)) << "\" y1=\"" << coordinate(bottom) << "\" x2=\""
      << coordinate(px(t)) << "\" y2=\"" << coordinate(bottom + 4)
      << "\" stroke=\"#333333\"/><text x=\"" << coordinate(px(t)) << "\" y=\""
      << coordinate(bottom + 16) << "\" text-anchor=\"middle\">" << short_number(t) << "</text>\n";
  }
  o << "</g>\n";
  o << "<path d=\"M" << coordinate(left) << ' ' << coordinate(top) << "V" << coordinate(bottom)
    << "H" << coordinate(right) << "\" fill=\"none\" stroke=\"#333333\"/>\n";
  o << "<text x=\"" << coordinate((left + right) / 2) << "\" y=\"" << coordinate(h - 8)
    << "\" text-anchor=\"middle\" font-size=\"12\">" << xml_text(spec.x_label) << "</text>\n";
  o << "<text x=\"14\" y=\"" << coordinate((top + bottom) / 2) << "\" text-anchor=\"middle\" "
    << "font-size=\"12\" transform=\"rotate(-90 14 " << coordinate((top + bottom) / 2) << ")\">"
    << xml_text(spec.y_label) << "</text>\n";

  // Lines and the legend (one row under the title).
  double legend_x = left;
  int legend_y = 36;  // whole pixels, printed as such
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (legend_x > left && legend_x + legend_width(series[i]) > right) {
      legend_x = left;
      legend_y += 14;
    }
    const char* color = kColors[i % kColors.size()];
    const bool dashed = (i / kColors.size()) % 2 == 1;
    const auto& points = series[i].points;
    const auto& band = series[i].band;
    if (!band.empty()) {
      // Along the highs, then back along the lows.
      o << "<polygon class=\"band\" fill=\"" << color << "\" fill-opacity=\"0.2\" stroke=\"none\" "
        << "points=\"";
      for (std::size_t k = 0; k < band.size(); ++k) {
        if (spec.step && k > 0) {
          o << ' ' << coordinate(px(band[k].x)) << ',' << coordinate(py(band[k - 1].high));
        }
        o << (k == 0 ? "" : " ") << coordinate(px(band[k].x)) << ','
          << coordinate(py(band[k].high));
      }
      for (std::size_t k = band.size(); k-- > 0;) {
        o << ' ' << coordinate(px(band[k].x)) << ',' << coordinate(py(band[k].low));
        if (spec.step && k > 0) {
          o << ' ' << coordinate(px(band[k].x)) << ',' << coordinate(py(band[k - 1].low));
        }
      }
      o << "\"/>\n";
    }
    if (!points.empty()) {
      o << "<polyline class=\"series\" fill=\"none\" stroke=\"" << color
        << "\" stroke-width=\"1.5\"" << (dashed ? " stroke-dasharray=\"5 3\"" : "") << " points=\"";
      for (std::size_t k = 0; k < points.size(); ++k) {
        if (spec.step && k > 0) {
          o << ' ' << coordinate(px(points[k].x)) << ',' << coordinate(py(points[k - 1].y));
        }
        o << (k == 0 ? "" : " ") << coordinate(px(points[k].x)) << ','
          << coordinate(py(points[k].y));
      }
      o << "\"/>\n";
    }
    for (const auto& m : series[i].marks) {
      o << "<circle class=\"mark\" cx=\"" << coordinate(px(m.x)) << "\" cy=\""
        << coordinate(py(m.y)) << "\" r=\"4.5\" fill=\"" << color << "\"/>\n";
    }
    if (!band.empty()) {
      o << "<rect x=\"" << coordinate(legend_x) << "\" y=\"" << legend_y - 5
        << "\" width=\"18\" height=\"10\" fill=\"" << color << "\" fill-opacity=\"0.2\"/>";
    }
    o << "<line x1=\"" << coordinate(legend_x) << "\" y1=\"" << legend_y << "\" x2=\""
      << coordinate(legend_x + 18) << "\" y2=\"" << legend_y << "\" stroke=\"" << color
      << "\" stroke-width=\"3\"" << (dashed ? " stroke-dasharray=\"5 3\"" : "") << "/><text x=\""
      << coordinate(legend_x + 22) << "\" y=\"" << legend_y + 4 << "\" font-size=\"11\">"
      << xml_text(series[i].name) << (points.empty() ? " (no data)" : "") << "</text>\n";
    legend_x += legend_width(series[i]);
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace gpumux
