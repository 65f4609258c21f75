// The pieces every section of the HTML report writes with (analysis/report/html_report.cc and
// its sections): a JSON value as a cell's text, escaped table cells, and a chart drawn into the
// page and kept for the figure files (--data).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/report/report_data.h"
#include "analysis/report/svg_chart.h"

namespace gpumux::html {

// The CSS of every report page (inline: a page references nothing outside itself).
extern const char* const kPageStyle;

// "-" for a missing value, "n/a" for null, a number in short form, a string as it is, else its
// JSON text.
std::string value_text(const nlohmann::json* v);
// A table cell of escaped text.
std::string td(const std::string& text);
std::string th(const std::string& text);
// Draws the figure into `page` and keeps it in `figures`; a chart with no data is not drawn
// (ReportFigure::drawn), left for left_out_section to list.
void chart(std::ostringstream& page, std::vector<ReportFigure>& figures, ChartSpec spec);
// The charts of `figures` left out for want of data, each with its reason, as one section; ""
// when every chart was drawn.
std::string left_out_section(const std::vector<ReportFigure>& figures);

}  // namespace gpumux::html
