#include "analysis/report/html_cells.h"

#include <nlohmann/json.hpp>

#include "analysis/output/xml_text.h"

namespace gpumux::html {

using nlohmann::json;

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
  page << svg_chart(spec);
  figures.push_back({std::move(spec), std::nullopt});
}

}  // namespace gpumux::html
