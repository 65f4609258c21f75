#include "analysis/report/pack_section.h"

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/output/number_text.h"
#include "analysis/output/xml_text.h"
#include "analysis/report/html_cells.h"

namespace gpumux {

namespace {

using html::chart;
using html::td;
using html::th;
using nlohmann::json;

// One policy's curve of `key` (alloc_pct or frag_pct): the means as the line, the intervals as
// the band; points without a value are left out.
ChartSeries policy_series(const json& policy, const char* key) {
  ChartSeries s;
  s.name = policy["policy"].get<std::string>();
  for (const json& c : policy["curve"]) {
    if (!c.contains(key) || c[key].is_null()) continue;
    const double x = c["arrived_pct"].get<double>();
    s.points.push_back({x, c[key]["mean"].get<double>()});
    s.band.push_back({x, c[key]["ci95_low"].get<double>(), c[key]["ci95_high"].get<double>()});
  }
  return s;
}

ChartSpec curve_chart(const PackFolder& p, const std::string& title, const char* key,
                      const std::string& y_label) {
  ChartSpec spec;
  spec.title = title;
  spec.x_label = "arrived GPU request (% of the cluster's GPUs)";
  spec.y_label = y_label;
  spec.y_max = 100.0;
  spec.no_data_reason = "no data: no seed sampled this curve";
  for (const json& policy : p.doc["policies"]) spec.series.push_back(policy_series(policy, key));
  return spec;
}

std::string percent_cell(const json& policy, int arrived) {
  for (const json& c : policy["curve"]) {
    if (c["arrived_pct"].get<double>() != arrived) continue;
    if (!c.contains("alloc_pct") || c["alloc_pct"].is_null()) return "n/a";
    const json& a = c["alloc_pct"];
    return fixed_text(a["mean"].get<double>(), 2) + " [" +
           fixed_text(a["ci95_low"].get<double>(), 2) + ", " +
           fixed_text(a["ci95_high"].get<double>(), 2) + "]";
  }
  return "-";
}

}  // namespace

void pack_section(std::ostringstream& page, std::vector<ReportFigure>& figures,
                  const PackFolder& p) {
  const json& d = p.doc;
  const auto text = [&](const char* key) {
    return d.contains(key) ? html::value_text(&d[key]) : std::string("-");
  };
  const std::size_t seeds = d.contains("seeds") && d["seeds"].is_array() ? d["seeds"].size() : 0;
  page << "<h3>" << xml_text(p.dir) << "</h3>\n<p>Pods <code>" << xml_text(text("pods_csv"))
       << "</code> on nodes <code>" << xml_text(text("nodes_csv")) << "</code> ("
       << xml_text(text("total_gpus")) << " GPUs), arrived up to "
       << xml_text(text("arrive_to_pct")) << "% of the GPUs, ties broken by "
       << xml_text(text("tie_break")) << ", " << seeds << (seeds == 1 ? " seed" : " seeds")
       << " per policy.</p>\n<div class=\"charts\">\n";
  chart(page, figures,
        curve_chart(p, "GPU allocation against arrived GPU request", "alloc_pct",
                    "GPUs allocated (% of the cluster's)"));
  chart(page, figures,
        curve_chart(p, "Fragmentation against arrived GPU request", "frag_pct",
                    "fragmented idle GPU (% of idle)"));
  page << "</div>\n<p class=\"note\">Each line: a policy's mean over the seeds; the band: its 95% "
          "interval (Student t, cut to 0-100 %; none with one seed).</p>\n";
  page << "<table><tr><th>policy</th>";
  int arrive_to = 130;
  if (d.contains("arrive_to_pct") && d["arrive_to_pct"].is_number()) {
    arrive_to = d["arrive_to_pct"].get<int>();
  }
  std::vector<int> columns;
  for (const int a : {100, 110, 120, 130}) {
    if (a <= arrive_to) columns.push_back(a);
  }
  if (columns.empty()) columns.push_back(arrive_to);
  for (const int a : columns) {
    page << th("allocation at " + std::to_string(a) + "% arrived: mean [95% interval]");
  }
  page << "</tr>\n";
  for (const json& policy : d["policies"]) {
    page << "<tr>" << th(policy["policy"].get<std::string>());
    for (const int a : columns) page << td(percent_cell(policy, a));
    page << "</tr>\n";
  }
  page << "</table>\n";
}

}  // namespace gpumux
