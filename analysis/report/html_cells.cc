#include "analysis/report/html_cells.h"

#include <nlohmann/json.hpp>

#include "analysis/output/xml_text.h"

namespace gpumux::html {

using nlohmann::json;

const char* const kPageStyle =
    "body{font-family:sans-serif;margin:24px;color:#222;max-width:1200px}"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;"
    "margin-top:32px}h3{font-size:15px}"
    "table{border-collapse:collapse;margin:8px 0 16px}"
    "th,td{border:1px solid #ddd;padding:3px 8px;font-size:13px;text-align:left}"
    "td{font-variant-numeric:tabular-nums}"
    ".charts{display:flex;flex-wrap:wrap;gap:12px}.note{color:#555;font-size:13px}"
    "nav a{margin-right:12px}";

std::string value_text(const json* v) {
  if (v == nullptr) return "-";
  if (v->is_null()) return "n/a";
  if (v->is_number()) return short_number(v->get<double>());
  if (v->is_string()) return v->get<std::string>();
  return v->dump();
}

std::string td(const std::string& text) { return "<td>" + xml_text(text) + "</td>"; }
std::string th(const std::string& text) { return "<th>" + xml_text(text) + "</th>"; }

void chart(std::ostringstream& page, std::vector<ReportFigure>& figures, ChartSpec spec) {
  const bool drawn = chart_has_data(spec);
  if (drawn) page << svg_chart(spec);
  ReportFigure figure{std::move(spec), std::nullopt};
  figure.drawn = drawn;
  figures.push_back(std::move(figure));
}

std::string left_out_section(const std::vector<ReportFigure>& figures) {
  std::string items;
  for (const auto& f : figures) {
    if (f.drawn || !f.chart) continue;
    items +=
        "<li>" + xml_text(f.chart->title) + ": " + xml_text(f.chart->no_data_reason) + "</li>\n";
  }
  if (items.empty()) return "";
  return "<section id=\"left-out\">\n<h2>Charts left out</h2>\n<p class=\"note\">Nothing to "
         "draw in these charts, so they are not on the page:</p>\n<ul class=\"note\">\n" +
         items + "</ul>\n</section>\n";
}

}  // namespace gpumux::html
