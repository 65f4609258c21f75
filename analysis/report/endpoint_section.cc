#include "analysis/report/endpoint_section.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/metrics/endpoint_selector.h"
#include "analysis/output/number_text.h"
#include "analysis/output/xml_text.h"

namespace gpumux {

namespace {

using nlohmann::json;

const json* services_of(const ReportVariant& v) {
  if (v.runs.empty()) return nullptr;
  const json& summary = v.runs.front().summary;
  const auto at = json::json_pointer("/metrics/requests/services");
  if (!summary.contains(at) || !summary.at(at).is_array()) return nullptr;
  return &summary.at(at);
}

std::string text_of(const json& row, const char* key) {
  return row.is_object() && row.contains(key) && row[key].is_string() ? row[key].get<std::string>()
                                                                      : "";
}

// One endpoint's value of `metric` in a variant's first run, as the table prints it.
std::string cell(const ReportVariant& v, const std::string& id, const char* metric) {
  if (v.runs.empty()) return "-";
  const auto values = endpoint_values(v.runs.front().summary, metric,
                                      EndpointSelector{EndpointSelector::Kind::kName, id});
  if (values.empty()) return "-";  // the variant has no such endpoint
  return values.front().value.value ? number_text(*values.front().value.value) : "n/a";
}

}  // namespace

std::string endpoint_section(const std::vector<ReportVariant>& variants) {
  struct Endpoint {
    std::string id, service_class;
    bool llm = false;
  };
  std::vector<Endpoint> endpoints;
  std::size_t most = 0;
  for (const ReportVariant& v : variants) {
    const json* services = services_of(v);
    if (!services) continue;
    most = std::max(most, services->size());
    for (const json& row : *services) {
      const std::string id = text_of(row, "id");
      if (id.empty() || std::any_of(endpoints.begin(), endpoints.end(),
                                    [&](const Endpoint& e) { return e.id == id; })) {
        continue;
      }
      endpoints.push_back({id, text_of(row, "class"), row.contains("llm")});
    }
  }
  if (most < 2) return "";
  std::ostringstream page;
  page << "<h3>Per endpoint</h3>\n<table><tr><th>endpoint</th><th>class</th><th>metric</th>";
  for (const ReportVariant& v : variants) page << "<th>" << xml_text(v.label) << "</th>";
  page << "</tr>\n";
  const std::size_t shown = std::min(endpoints.size(), kMaxReportEndpoints);
  for (std::size_t i = 0; i < shown; ++i) {
    const Endpoint& e = endpoints[i];
    const std::vector<std::pair<const char*, const char*>> metrics =
        e.llm ? std::vector<std::pair<const char*, const char*>>{{"TTFT p99 (ms)",
                                                                  "requests.ttft_ms.p99"},
                                                                 {"TPOT p99 (ms)",
                                                                  "requests.tpot_ms.p99"}}
              : std::vector<std::pair<const char*, const char*>>{
                    {"latency p99 (ms)", "requests.latency_ms.p99"}};
    for (const auto& [label, metric] : metrics) {
      page << "<tr><th>" << xml_text(e.id) << "</th><td>" << xml_text(e.service_class)
           << "</td><td>" << label << "</td>";
      for (const ReportVariant& v : variants)
        page << "<td>" << xml_text(cell(v, e.id, metric)) << "</td>";
      page << "</tr>\n";
    }
  }
  page << "</table>\n";
  if (endpoints.size() > shown) {
    page << "<p class=\"note\">" << endpoints.size() - shown << " more endpoints not listed (the "
         << "first " << kMaxReportEndpoints << " are).</p>\n";
  }
  page << "<p class=\"note\">Each endpoint on its own numbers (its row of "
          "metrics.requests.services, the first seed's run), as <code>expect</code> and <code>plan "
          "--objective</code> "
          "bounds read them with <code>for ID</code>; - : the variant has no such endpoint.</p>\n";
  return page.str();
}

}  // namespace gpumux
