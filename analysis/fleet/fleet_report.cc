#include "analysis/fleet/fleet_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "analysis/fleet/fleet_output.h"
#include "analysis/output/number_text.h"
#include "analysis/output/xml_text.h"
#include "analysis/report/bar_chart.h"
#include "analysis/report/html_cells.h"
#include "analysis/report/svg_chart.h"

namespace gpumux {

namespace {

using html::td;
using html::th;

// The colours of a GPU's memory bar: weights + reserve, KV cache, unclaimed.
constexpr const char* kWeightsColor = "#0072B2";
constexpr const char* kKvColor = "#56B4E9";
constexpr const char* kFreeColor = "#eeeeee";

std::string percent(double share) {
  return std::isfinite(share) ? fixed_text(100.0 * share, 0) + " %" : "n/a";
}
std::string ms(double x) { return std::isfinite(x) ? fixed_text(x, 1) : "n/a"; }
std::string gib(double mib) { return fixed_text(mib / 1024.0, 1); }

// The endpoints of the scenario, each with its round-robin replicas, in the answer's order.
std::vector<std::pair<std::string, std::vector<const FleetEndpoint*>>> by_parent(
    const FleetAnswer& a) {
  std::vector<std::pair<std::string, std::vector<const FleetEndpoint*>>> out;
  for (const FleetEndpoint& e : a.endpoints) {
    const std::string& parent = e.parent.empty() ? e.id : e.parent;
    auto it =
        std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == parent; });
    if (it == out.end()) {
      out.push_back({parent, {}});
      it = std::prev(out.end());
    }
    it->second.push_back(&e);
  }
  return out;
}

// The CDF of an endpoint's requests over its replicas: at every latency any replica's CDF steps
// at, the mean of the replicas' CDFs weighted by the requests each served.
std::vector<ChartPoint> pooled_cdf(const std::vector<const FleetEndpoint*>& parts,
                                   std::vector<std::pair<double, double>> FleetEndpoint::*cdf) {
  double total = 0.0;
  std::vector<double> xs;
  for (const FleetEndpoint* e : parts) {
    if ((e->*cdf).empty() || !(e->served_requests > 0)) continue;
    total += e->served_requests;
    for (const auto& [x, share] : e->*cdf) xs.push_back(x);
  }
  std::vector<ChartPoint> out;
  if (!(total > 0)) return out;
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::vector<std::size_t> next(parts.size(), 0);
  for (const double x : xs) {
    double y = 0.0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const auto& points = parts[i]->*cdf;
      if (points.empty() || !(parts[i]->served_requests > 0)) continue;
      while (next[i] < points.size() && points[next[i]].first <= x) ++next[i];
      if (next[i] > 0) y += parts[i]->served_requests * points[next[i] - 1].second;
    }
    out.push_back({x, y / total});
  }
  return downsample(out, kMaxChartPoints);
}

ChartSpec cdf_chart(const FleetAnswer& a, const std::string& metric,
                    std::vector<std::pair<double, double>> FleetEndpoint::*cdf) {
  ChartSpec spec;
  spec.title = a.model + ": " + metric + " CDF per endpoint";
  spec.x_label = metric + " (ms, log scale)";
  spec.y_label = "share of served requests at or below";
  spec.step = true;
  spec.log_x = true;
  spec.y_min = 0.0;
  spec.y_max = 1.0;
  spec.no_data_reason = "no data: no endpoint served a request";
  for (const auto& [parent, parts] : by_parent(a)) {
    if (parts.front()->plain) continue;  // a plain service has no tokens: its latency is tabled
    ChartSeries s;
    s.name =
        parts.size() > 1 ? parent + " (" + std::to_string(parts.size()) + " replicas)" : parent;
    s.points = pooled_cdf(parts, cdf);
    spec.series.push_back(std::move(s));
  }
  return spec;
}

// One bar per answer and the memory-only packing: GPUs.
BarChartSpec gpus_chart(const FleetResult& r) {
  BarChartSpec spec;
  spec.title = "GPUs per sharing model";
  spec.x_label = "GPUs that meet every endpoint's objectives";
  std::size_t color = 0;
  for (const FleetAnswer& a : r.answers) {
    Bar b;
    b.label = a.met ? a.model : a.model + " (not met)";
    b.mean = static_cast<double>(a.gpu_count());
    b.n = 1;
    b.color = color++;
    spec.bars.push_back(std::move(b));
  }
  Bar naive;
  naive.label = "memory-only packing";
  naive.mean = static_cast<double>(r.naive_gpus);
  naive.n = 1;
  naive.color = color;
  spec.bars.push_back(std::move(naive));
  return spec;
}

const FleetAnswer* exclusive_answer(const FleetResult& r) {
  for (const auto& a : r.answers) {
    if (a.form == FleetForm::kWhole && a.met) return &a;
  }
  return nullptr;
}

void answers_table(std::ostringstream& page, const FleetResult& r) {
  const FleetAnswer* base = exclusive_answer(r);
  page << "<table><tr><th>model</th><th>GPUs</th><th>nodes</th><th>saving vs one endpoint "
          "per GPU</th><th>search</th><th>verified</th><th>answer</th><th>one GPU fewer</th>"
          "</tr>\n";
  for (const FleetAnswer& a : r.answers) {
    std::string saving = "-";
    if (base && a.met && &a != base && base->gpu_count() > 0) {
      saving =
          fixed_text(100.0 * (1.0 - static_cast<double>(a.gpu_count()) / base->gpu_count()), 0) +
          " %";
    }
    std::string fewer = a.one_fewer_note;
    if (a.one_fewer_miss) fewer += ": " + a.one_fewer_miss->text();
    page << "<tr>" << th(a.model) << td(std::to_string(a.gpu_count()))
         << td(std::to_string(a.nodes(r.gpus_per_node))) << td(saving)
         << td(a.exact ? "exact" : "greedy (" + a.search_note + ")")
         << td(a.verified ? "yes" : "no") << td(a.met ? "met" : "NOT MET")
         << td(fewer.empty() ? "-" : fewer) << "</tr>\n";
  }
  page << "<tr>" << th("memory-only packing") << td(std::to_string(r.naive_gpus)) << td("-")
       << td("-") << td("first fit") << td("-")
       << td(r.naive_miss ? "time-sliced as packed it misses: " + r.naive_miss->text()
                          : "time-sliced as packed it meets every objective")
       << td("-") << "</tr>\n</table>\n";
}

// A GPU's memory as one stacked bar: weights + reserve, KV cache, unclaimed.
std::string memory_bar(double weights_mib, double kv_mib, double free_mib) {
  const double total = weights_mib + kv_mib + free_mib;
  if (!(total > 0)) return "";
  std::ostringstream o;
  o << "<div style=\"display:flex;width:200px;height:12px;border:1px solid #999\">";
  for (const auto& [mib, color] : {std::pair{weights_mib, kWeightsColor},
                                   std::pair{kv_mib, kKvColor}, std::pair{free_mib, kFreeColor}}) {
    o << "<div style=\"width:" << fixed_text(100.0 * mib / total, 2) << "%;background:" << color
      << "\"></div>";
  }
  o << "</div>";
  return o.str();
}

void gpu_table(std::ostringstream& page, const FleetResult& r, const FleetAnswer& a) {
  page << "<table><tr><th>GPU</th><th>endpoints</th><th>output tokens/s</th><th>busy</th>"
          "<th>weights + reserve (GiB)</th><th>KV cache (GiB)</th><th>unclaimed (GiB)</th>"
          "<th>memory</th></tr>\n";
  for (const FleetGpu& gpu : a.gpus) {
    std::string endpoints, busy;
    double weights = 0.0, engine = 0.0;
    for (std::size_t k = 0; k < gpu.endpoints.size(); ++k) {
      const FleetEndpoint& e = a.endpoints[static_cast<std::size_t>(gpu.endpoints[k])];
      endpoints += (k ? ", " : "") + fleet_placed_text(e, a.form);
      weights += e.fixed_mib;
      engine += e.engine_memory_mib;
      if (!std::isfinite(gpu.gpu_busy)) {
        busy += (k ? ", " : "") + (gpu.endpoints.size() > 1 ? e.id + " " : std::string()) +
                (e.plain ? "plain service, not tracked" : "engine " + percent(e.busy_share));
      }
    }
    if (std::isfinite(gpu.gpu_busy)) {
      busy = "GPU " + percent(gpu.gpu_busy) + ", SMs " + percent(gpu.sm_busy) + ", bandwidth " +
             percent(gpu.bandwidth_busy);
    }
    const double device = static_cast<double>(r.device_memory_mib) * gpu.width;
    const double kv = std::max(0.0, engine - weights);
    const double unclaimed = std::max(0.0, device - engine);
    const std::string name = gpu.width == 1 ? std::to_string(gpu.first)
                                            : std::to_string(gpu.first) + "-" +
                                                  std::to_string(gpu.first + gpu.width - 1);
    page << "<tr>" << td(name) << td(endpoints) << td(fixed_text(gpu.output_tokens_per_s, 0))
         << td(busy) << td(gib(weights)) << td(gib(kv)) << td(gib(unclaimed)) << "<td>"
         << memory_bar(weights, kv, unclaimed) << "</td></tr>\n";
  }
  page << "</table>\n<p class=\"note\">Busy: the share of the run the GPU, its SMs and its memory "
          "bandwidth were busy where its endpoints were simulated together; otherwise each "
          "engine's share of the run spent in iterations. Memory: "
       << "<span style=\"color:" << kWeightsColor << "\">&#9632;</span> weights + runtime reserve, "
       << "<span style=\"color:" << kKvColor
       << "\">&#9632;</span> KV cache (the rest of each engine's gpu_memory_utilization share), "
          "<span style=\"color:#999\">&#9632;</span> claimed by no engine.</p>\n";
}

void endpoint_table(std::ostringstream& page, const FleetAnswer& a) {
  page << "<table><tr><th>endpoint</th><th>GPU</th><th>TTFT p50 (ms)</th><th>TTFT p99 (ms)</th>"
          "<th>TPOT p50 (ms)</th><th>TPOT p99 (ms)</th><th>request latency p50 (ms)</th>"
          "<th>request latency p99 (ms)</th><th>output tokens/s</th><th>engine busy"
          "</th><th>KV cache in use</th><th>headroom</th><th>objectives</th></tr>\n";
  for (const FleetEndpoint& e : a.endpoints) {
    if (e.gpu < 0) continue;
    const bool met = std::all_of(e.checks.begin(), e.checks.end(),
                                 [](const FleetEndpoint::Check& c) { return c.met; });
    page << "<tr>" << th(e.id) << td(std::to_string(e.gpu)) << td(ms(e.ttft_p50_ms))
         << td(ms(e.ttft_p99_ms)) << td(ms(e.tpot_p50_ms)) << td(ms(e.tpot_p99_ms))
         << td(ms(e.latency_p50_ms)) << td(ms(e.latency_p99_ms))
         << td(std::isfinite(e.output_tokens_per_s) ? fixed_text(e.output_tokens_per_s, 0) : "n/a")
         << td(percent(e.busy_share)) << td(percent(e.kv_cache_use)) << td(fleet_headroom_text(e))
         << td(met ? "met" : "MISSED") << "</tr>\n";
  }
  page << "</table>\n";
}

}  // namespace

std::string fleet_report_html(const FleetResult& r) {
  std::ostringstream page;
  const std::string title = "gpumux fleet plan: " + r.scenario_name;
  page << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<title>" << xml_text(title) << "</title>\n"
       << "<link rel=\"icon\" href=\"data:,\">\n<style>" << html::kPageStyle
       << "</style>\n</head>\n<body>\n<h1>" << xml_text(title) << "</h1>\n";
  page << "<p>Scenario <code>" << xml_text(r.scenario_file) << "</code>, seed " << r.seed << ": "
       << r.endpoint_ids.size() << " LLM endpoints on " << xml_text(r.device) << ", "
       << r.gpus_per_node << " GPUs per node. Objectives, every endpoint held to each that "
       << "selects it:";
  for (std::size_t i = 0; i < r.objectives.size(); ++i) {
    page << (i ? ", " : " ") << "<code>" << xml_text(r.objectives[i].text()) << "</code>"
         << (r.objectives[i].implicit ? " (always)" : "");
  }
  page << ". Every number below is the whole-fleet run's (the scenario <code>--out</code> writes "
          "to fleet/&lt;model&gt;/), first seed.</p>\n";
  if (!r.replicas.empty()) {
    page << "<p>Round-robin replicas (one whole GPU misses an objective):";
    for (std::size_t i = 0; i < r.replicas.size(); ++i) {
      page << (i ? ", " : " ") << xml_text(r.replicas[i].first) << " x" << r.replicas[i].second;
    }
    page << ".</p>\n";
  }
  for (const std::string& n : r.notes) page << "<p class=\"note\">" << xml_text(n) << "</p>\n";
  page << "<nav><a href=\"#gpus\">GPUs per model</a>";
  for (const FleetAnswer& a : r.answers) {
    page << "<a href=\"#answer-" << xml_text(a.model) << "\">" << xml_text(a.model) << "</a>";
  }
  page << "</nav>\n<section id=\"gpus\">\n<h2>GPUs per sharing model</h2>\n"
       << svg_bar_chart(gpus_chart(r)) << "\n";
  answers_table(page, r);
  page << "</section>\n";
  const std::vector<FleetAssumption> assumed = fleet_assumptions(r);
  if (!assumed.empty()) {
    page << "<h3>What every answer assumes</h3>\n<table><tr><th>endpoint</th><th>model; "
            "traffic; engine; efficiencies</th></tr>\n";
    for (const FleetAssumption& a : assumed) page << "<tr>" << th(a.id) << td(a.text) << "</tr>\n";
    page << "</table>\n<p class=\"note\">Each endpoint as its first replica ran in the first "
            "answer's whole-fleet run; <code>plan --fleet --vary</code> shows how the answers "
            "move with one of them.</p>\n";
  }
  for (const FleetAnswer& a : r.answers) {
    page << "<section id=\"answer-" << xml_text(a.model) << "\">\n<h2>" << xml_text(a.model) << ": "
         << a.gpu_count() << " GPUs, " << a.nodes(r.gpus_per_node) << " nodes"
         << (a.met ? "" : " (NOT MET)") << "</h2>\n<p class=\"note\">"
         << xml_text(a.verification.empty() ? "not run as a whole fleet" : a.verification)
         << ".</p>\n";
    for (const FleetMiss& m : a.alone_misses) {
      page << "<p class=\"note\">Misses alone: " << xml_text(m.text()) << "</p>\n";
    }
    if (a.gpus.empty()) {
      page << "</section>\n";
      continue;
    }
    page << "<h3>GPUs</h3>\n";
    gpu_table(page, r, a);
    page << "<h3>Endpoints</h3>\n<div class=\"charts\">\n"
         << svg_chart(cdf_chart(a, "TTFT", &FleetEndpoint::ttft_cdf_ms)) << "\n"
         << svg_chart(cdf_chart(a, "TPOT", &FleetEndpoint::tpot_cdf_ms)) << "\n</div>\n";
    endpoint_table(page, a);
    page << "</section>\n";
  }
  page << "</body>\n</html>\n";
  return page.str();
}

}  // namespace gpumux
