#include "analysis/report/bar_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis/output/xml_text.h"
#include "analysis/report/svg_chart.h"

namespace gpumux {

namespace {

std::string coordinate(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return std::string(buffer) == "-0.0" ? "0.0" : buffer;
}

constexpr double kRow = 22;  // px per bar

}  // namespace

std::string svg_bar_chart(const BarChartSpec& spec) {
  std::size_t longest = 0;
  for (const auto& b : spec.bars) longest = std::max(longest, b.label.size());
  // Labels up to about 40 characters fit beside the bars; longer ones run into the margin.
  const double left = 12 + 6.2 * static_cast<double>(std::min<std::size_t>(longest, 40));
  // Wider than asked when long labels would leave the bars less than 260 px.
  const int width = std::max(spec.width, static_cast<int>(left) + 24 + 260);
  const double w = width;
  const double right = w - 24, top = 34;
  const double bottom =
      top + kRow * static_cast<double>(std::max<std::size_t>(spec.bars.size(), 1));
  const int height = static_cast<int>(bottom) + 40;

  double lo = 0.0, hi = 0.0;
  for (const auto& b : spec.bars) {
    for (const auto& v : {b.mean, b.low, b.high}) {
      if (v && std::isfinite(*v)) {
        lo = std::min(lo, *v);
        hi = std::max(hi, *v);
      }
    }
  }
  if (hi == lo) hi = lo + 1.0;  // all zero: an axis from 0 to 1
  std::vector<double> ticks = nice_ticks(lo, hi, 4);
  if (!ticks.empty() && ticks.size() > 1) {
    const double step = ticks[1] - ticks[0];
    if (ticks.front() > lo) ticks.insert(ticks.begin(), ticks.front() - step);
    if (ticks.back() < hi) ticks.push_back(ticks.back() + step);
    lo = ticks.front();
    hi = ticks.back();
  }
  const auto px = [&](double v) { return left + (v - lo) / (hi - lo) * (right - left); };

  std::ostringstream o;
  o << "<svg width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << ' '
    << height << "\" role=\"img\" aria-label=\"" << xml_text(spec.title)
    << "\" class=\"chart bar-chart\">\n";
  o << "<rect x=\"0.5\" y=\"0.5\" width=\"" << width - 1 << "\" height=\"" << height - 1
    << "\" fill=\"#ffffff\" stroke=\"#cccccc\"/>\n";
  o << "<text x=\"" << coordinate(w / 2) << "\" y=\"20\" text-anchor=\"middle\" "
    << "font-size=\"14\" font-weight=\"bold\">" << xml_text(spec.title) << "</text>\n";
  o << "<g font-size=\"11\" fill=\"#333333\">\n";
  for (double t : ticks) {
    o << "<line x1=\"" << coordinate(px(t)) << "\" y1=\"" << coordinate(top) << "\" x2=\""
      << coordinate(px(t)) << "\" y2=\"" << coordinate(bottom + 4)
      << "\" stroke=\"#eeeeee\"/><text x=\"" << coordinate(px(t)) << "\" y=\""
      << coordinate(bottom + 16) << "\" text-anchor=\"middle\">" << short_number(t) << "</text>\n";
  }
  o << "</g>\n";
  o << "<path d=\"M" << coordinate(px(0)) << ' ' << coordinate(top) << "V" << coordinate(bottom)
    << "\" fill=\"none\" stroke=\"#333333\"/>\n";
  o << "<text x=\"" << coordinate((left + right) / 2) << "\" y=\"" << height - 8
    << "\" text-anchor=\"middle\" font-size=\"12\">" << xml_text(spec.x_label) << "</text>\n";
  for (std::size_t i = 0; i < spec.bars.size(); ++i) {
    const Bar& b = spec.bars[i];
    const double y = top + kRow * static_cast<double>(i);
    const double mid = y + kRow / 2;
    o << "<text x=\"" << coordinate(left - 6) << "\" y=\"" << coordinate(mid + 4)
      << "\" text-anchor=\"end\" font-size=\"11\">" << xml_text(b.label) << "</text>\n";
    if (!b.mean || !std::isfinite(*b.mean)) {
      o << "<text x=\"" << coordinate(px(0) + 4) << "\" y=\"" << coordinate(mid + 4)
        << "\" font-size=\"11\" fill=\"#666666\">n/a</text>\n";
      continue;
    }
    const double x0 = std::min(px(0), px(*b.mean)), x1 = std::max(px(0), px(*b.mean));
    o << "<rect class=\"bar\" x=\"" << coordinate(x0) << "\" y=\"" << coordinate(y + 4)
      << "\" width=\"" << coordinate(x1 - x0) << "\" height=\"" << coordinate(kRow - 8)
      << "\" fill=\"" << series_color(b.color) << "\" fill-opacity=\"0.75\"/>\n";
    if (b.low && b.high && std::isfinite(*b.low) && std::isfinite(*b.high)) {
      const std::string l = coordinate(px(*b.low)), h = coordinate(px(*b.high));
      o << "<path class=\"error-bar\" d=\"M" << l << ' ' << coordinate(mid) << "H" << h << "M" << l
        << ' ' << coordinate(mid - 5) << "V" << coordinate(mid + 5) << "M" << h << ' '
        << coordinate(mid - 5) << "V" << coordinate(mid + 5)
        << "\" fill=\"none\" stroke=\"#222222\" stroke-width=\"1.5\"/>\n";
    }
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace gpumux
