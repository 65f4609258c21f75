#include "analysis/report/queue_reason_section.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <iomanip>
#include <sstream>

#include "analysis/output/number_text.h"
#include "analysis/output/xml_text.h"
#include "analysis/report/svg_chart.h"
#include "sim/core/queue_reason.h"

namespace gpumux {

namespace {

using nlohmann::json;

constexpr const char* kFamily = "queued_by_reason";

std::string significant(double x) {
  std::ostringstream out;
  out << std::setprecision(3) << x;
  return out.str();
}

// The reason's share, or null when absent or not a number.
const json* share_of(const json& family, std::string_view reason) {
  const auto r = family.find(std::string(reason));
  if (r == family.end() || !r->is_object()) return nullptr;
  const auto s = r->find("share");
  return s == r->end() || !s->is_number() ? nullptr : &*s;
}

}  // namespace

std::string queued_by_reason_text(const json& metrics) {
  const auto family = metrics.find(kFamily);
  if (family == metrics.end() || !family->is_object()) return "";
  const auto total = family->find("total_job_s");
  if (total == family->end() || !total->is_number() || !(total->get<double>() > 0.0)) return "";
  std::array<std::size_t, kQueueReasonCount> order{};
  std::array<double, kQueueReasonCount> share{};
  for (std::size_t r = 0; r < kQueueReasonCount; ++r) {
    order[r] = r;
    const json* s = share_of(*family, kQueueReasonNames[r]);
    share[r] = s ? s->get<double>() : 0.0;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return share[a] > share[b]; });
  std::string text;
  for (std::size_t r : order) {
    const std::string percent = fixed_text(100.0 * share[r], 1);
    if (percent == "0.0") continue;
    text += (text.empty() ? "" : ", ") + std::string(kQueueReasonNames[r]) + " " + percent + " %";
  }
  return text + " of " + significant(total->get<double>()) + " job-s";
}

std::string queue_reason_section(const std::vector<ReportVariant>& variants) {
  std::ostringstream page;
  page << "<section id=\"why-queued\">\n<h2>Why jobs queued</h2>\n"
          "<p class=\"note\">Queued job-seconds (jobs waiting x time) by the reason the head of "
          "the queue could not start, as a share of the total (docs/outputs.md "
          "\"queued_by_reason\").</p>\n<table>\n<tr><th>reason</th>";
  for (const ReportVariant& v : variants) page << "<th>" << xml_text(v.label) << "</th>";
  page << "</tr>\n";
  auto family_of = [](const ReportVariant& v) -> const json* {
    const json& summary = v.runs.front().summary;
    const auto metrics = summary.find("metrics");
    if (metrics == summary.end() || !metrics->is_object()) return nullptr;
    const auto family = metrics->find(kFamily);
    return family == metrics->end() || !family->is_object() ? nullptr : &*family;
  };
  for (std::size_t r = 0; r < kQueueReasonCount; ++r) {
    page << "<tr><td>" << kQueueReasonNames[r] << "</td>";
    for (const ReportVariant& v : variants) {
      const json* family = family_of(v);
      if (family == nullptr) {
        page << "<td>-</td>";
        continue;
      }
      const json* s = share_of(*family, kQueueReasonNames[r]);
      page << "<td>" << (s ? fixed_text(100.0 * s->get<double>(), 1) + " %" : "n/a") << "</td>";
    }
    page << "</tr>\n";
  }
  page << "<tr><td>total (job-s)</td>";
  bool predates = false;
  for (const ReportVariant& v : variants) {
    const json* family = family_of(v);
    if (family == nullptr) {
      predates = true;
      page << "<td>not recorded</td>";
      continue;
    }
    const auto total = family->find("total_job_s");
    page << "<td>"
         << (total != family->end() && total->is_number() ? short_number(total->get<double>())
                                                          : std::string("n/a"))
         << "</td>";
  }
  page << "</tr>\n</table>\n";
  if (predates) {
    page << "<p class=\"note\">\"not recorded\": the run's summary.json predates the "
            "queued_by_reason metrics; run it again to see why its jobs queued.</p>\n";
  }
  page << "</section>\n";
  return page.str();
}

}  // namespace gpumux
