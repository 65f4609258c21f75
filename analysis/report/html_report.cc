#include "analysis/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/metrics/metric_catalogue.h"
#include "analysis/metrics/metric_format.h"
#include "analysis/output/xml_text.h"
#include "analysis/report/bar_chart.h"
#include "analysis/report/endpoint_section.h"
#include "analysis/report/html_cells.h"
#include "analysis/report/pack_section.h"
#include "analysis/report/plan_charts.h"
#include "analysis/report/plan_section.h"
#include "analysis/report/queue_reason_section.h"
#include "analysis/report/report_charts.h"
#include "analysis/report/report_inputs.h"
#include "analysis/report/seed_series.h"
#include "analysis/report/svg_chart.h"
#include "analysis/stats/mean_interval.h"
#include "sim/base/atomic_file.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

namespace fs = std::filesystem;
using html::chart;
using html::left_out_section;
using html::td;
using html::th;
using html::value_text;
using nlohmann::json;

struct MetricRow {
  const char* label;
  const char* pointer;  // in summary.json's metrics
};

constexpr MetricRow kKeyMetrics[] = {
    {"jobs arrived", "/jobs/arrived"},
    {"jobs finished", "/jobs/finished"},
    {"jobs rejected", "/jobs/rejected"},
    {"GPU allocation ratio", "/gpu_allocation_ratio"},
    {"SM-busy utilization", "/sm_busy_utilization"},
    {"SM-busy per allocated GPU", "/sm_busy_per_allocated_gpu"},
    {"sharing overhead", "/sharing_overhead"},
    {"mean GPUs in use", "/mean_allocated_gpus"},
    {"peak GPUs in use", "/peak_allocated_gpus"},
    {"JCT mean (s)", "/jct_s/mean"},
    {"JCT p50 (s)", "/jct_s/p50"},
    {"JCT p95 (s)", "/jct_s/p95"},
    {"JCT p99 (s)", "/jct_s/p99"},
    {"queueing mean (s)", "/queueing_delay_s/mean"},
    {"queueing p95 (s)", "/queueing_delay_s/p95"},
    {"makespan (s)", "/makespan_s"},
};

// Runs of several kinds of job (metrics.by_kind): each kind's own rows, since the key metrics'
// JCT rows are then the batch jobs' alone.
constexpr MetricRow kKindMetrics[] = {
    {"training jobs finished", "/by_kind/training/finished"},
    {"training JCT mean (s)", "/by_kind/training/jct_s/mean"},
    {"training JCT p95 (s)", "/by_kind/training/jct_s/p95"},
    {"training queueing p95 (s)", "/by_kind/training/queueing_delay_s/p95"},
    {"batch inference jobs finished", "/by_kind/inference/finished"},
    {"batch inference JCT p95 (s)", "/by_kind/inference/jct_s/p95"},
    {"batch inference queueing p95 (s)", "/by_kind/inference/queueing_delay_s/p95"},
    {"services finished", "/by_kind/services/finished"},
    {"services start delay mean (s)", "/by_kind/services/queueing_delay_s/mean"},
    {"services start delay p95 (s)", "/by_kind/services/queueing_delay_s/p95"},
};

constexpr MetricRow kFailureMetrics[] = {
    {"out-of-memory events", "/failures/memory_faults"},
    {"OOM kills", "/failures/memory_fault_kills"},
    {"fatal faults", "/failures/fatal_faults"},
    {"fatal-fault kills", "/failures/fatal_fault_kills"},
    {"jobs killed", "/failures/jobs_killed"},
    {"jobs failed", "/failures/jobs_failed"},
    {"lost work (GPU-hours)", "/failures/lost_work_gpu_hours"},
};

constexpr MetricRow kRequestMetrics[] = {
    {"mode", "/requests/mode"},
    {"requests arrived", "/requests/count"},
    {"served", "/requests/served"},
    {"dropped", "/requests/dropped"},
    {"timed out", "/requests/timed_out"},
    {"latency mean (ms)", "/requests/latency_ms/mean"},
    {"latency p50 (ms)", "/requests/latency_ms/p50"},
    {"latency p95 (ms)", "/requests/latency_ms/p95"},
    {"latency p99 (ms)", "/requests/latency_ms/p99"},
    {"SLO attainment", "/requests/slo_attainment"},
};

// LLM endpoints (docs/llm-serving.md "Metrics"), shown only when a run has one.
constexpr MetricRow kLlmMetrics[] = {
    {"TTFT p50 (ms)", "/requests/ttft_ms/p50"},
    {"TTFT p99 (ms)", "/requests/ttft_ms/p99"},
    {"TPOT p50 (ms)", "/requests/tpot_ms/p50"},
    {"TPOT p99 (ms)", "/requests/tpot_ms/p99"},
    {"ITL p50 (ms)", "/requests/itl_ms/p50"},
    {"output tokens/s", "/requests/output_tokens_per_s"},
    {"goodput (requests/s)", "/requests/goodput_per_s"},
    {"preemptions", "/requests/preemptions"},
    {"refused", "/requests/refused"},
};

constexpr MetricRow kSlotMetrics[] = {
    {"slice utilization", "/slots/slice_utilization"},
    {"memory allocation share", "/slots/memory_allocation_share"},
    {"free slice share", "/slots/free_slice_share"},
    {"unavailable slice share", "/slots/unavailable_slice_share"},
    {"fragmentation", "/slots/fragmentation"},
    {"mean split GPUs", "/slots/mean_split_gpus"},
    {"fit-blocked jobs", "/slots/fit_blocked/jobs"},
};

// A summary value in a metric table: a metric of compare's table with compare's digits
// (metric_format.h), any other number with up to 4 significant digits.
std::string metric_text(const json* v, const char* pointer) {
  if (v == nullptr || !v->is_number()) return value_text(v);
  std::string name = pointer + 1;  // "/jct_s/p95" -> "jct_s.p95"
  std::replace(name.begin(), name.end(), '/', '.');
  return metric_value_text(name, v->get<double>(), short_number);
}

// A variant's value of a metric: the mean over the seeds that have a number for it; with none,
// the first seed's value as it is (n/a, or missing).
json seed_mean(const ReportVariant& v, const char* pointer) {
  double sum = 0.0;
  std::size_t n = 0;
  for (const auto& run : v.runs) {
    const json* x = json_find(run.summary["metrics"], pointer);
    if (x != nullptr && x->is_number()) {
      sum += x->get<double>();
      ++n;
    }
  }
  if (n > 0) return json(sum / static_cast<double>(n));
  const json* first = json_find(v.runs.front().summary["metrics"], pointer);
  return first != nullptr ? *first : json();
}

// Rows = metrics, columns = variants, each value the mean over the variant's seeds.
template <std::size_t N>
void metric_table(std::ostringstream& page, const std::vector<ReportVariant>& variants,
                  const MetricRow (&rows)[N]) {
  page << "<table><tr><th>metric</th>";
  for (const auto& v : variants) page << th(v.label);
  page << "</tr>\n";
  for (const auto& row : rows) {
    page << "<tr>" << th(row.label);
    for (const auto& v : variants) {
      const json* first = json_find(v.runs.front().summary["metrics"], row.pointer);
      const json mean = seed_mean(v, row.pointer);
      page << td(metric_text(first == nullptr && mean.is_null() ? nullptr : &mean, row.pointer));
    }
    page << "</tr>\n";
  }
  page << "</table>\n";
}

// One bar chart per metric of a table with two variants or more: each variant's mean with its
// 95% interval as an error bar.
void bar_charts(std::ostringstream& page, std::vector<ReportFigure>& figures, const SeedTable& t,
                const std::vector<ReportVariant>& variants) {
  if (t.columns.size() < 2) return;
  page << "<h3>" << xml_text(t.heading) << "</h3>\n<div class=\"charts\">\n";
  for (std::size_t m = 0; m < t.metric_labels.size(); ++m) {
    BarChartSpec spec;
    spec.title = t.metric_labels[m];
    spec.x_label = t.metric_labels[m] + ", mean over the seeds";
    bool nonzero = false;
    for (std::size_t v = 0; v < t.columns.size(); ++v) {
      const SeedCell& c = t.cells[m][v];
      // The colour of the variant's lines; a variant with no line (no run ended) its column's.
      std::size_t color = v;
      for (std::size_t i = 0; i < variants.size(); ++i) {
        if (variants[i].label == t.columns[v]) color = i;
      }
      Bar bar{t.columns[v], c.mean, std::nullopt, std::nullopt, c.n, color};
      if (c.mean && c.half_width) {
        // Cut to the metric's domain: a JCT's interval does not reach below 0.
        const MetricDomain domain = metric_domain(t.metric_names[m]);
        const ClippedInterval ci = clip_interval(*c.mean, *c.half_width, domain.low, domain.high);
        bar.low = ci.low;
        bar.high = ci.high;
        bar.clipped = ci.clipped;
      }
      nonzero = nonzero || (c.mean && *c.mean != 0) || (c.half_width && *c.half_width != 0);
      spec.bars.push_back(std::move(bar));
    }
    // n/a or 0 everywhere (no OOM kill in any run): nothing to compare, no chart.
    if (!nonzero) continue;
    page << svg_bar_chart(spec);
    figures.push_back({std::nullopt, std::move(spec)});
  }
  page << "</div>\n<p class=\"note\">Bars: the mean over the seeds; error bars: the 95% "
          "confidence interval of the mean (Student t), as in the table above, cut to the "
          "values the metric can take (a time not below 0, a share not above 1); none with one "
          "seed. n/a: no mean (an empty set in some seed). Metrics that are n/a or 0 for every "
          "variant have no chart.</p>\n";
}

// What the time-series charts' line and band are, under them, when some variant has seeds.
void band_caption(std::ostringstream& page, const std::vector<ReportVariant>& variants) {
  const std::string caption = seed_band_caption(variants);
  if (!caption.empty()) page << "<p class=\"note\">" << xml_text(caption) << "</p>\n";
}

// A table over seeds (a compare or sweep folder), each cell as the terminal prints it.
void seed_table(std::ostringstream& page, const SeedTable& t) {
  page << "<h3>" << xml_text(t.heading) << "</h3>\n<table><tr><th>metric</th>";
  for (const auto& c : t.columns) page << th(c);
  page << "</tr>\n";
  for (std::size_t m = 0; m < t.metric_labels.size(); ++m) {
    page << "<tr>" << th(t.metric_labels[m]);
    for (const auto& cell : t.cells[m]) page << td(cell.text);
    page << "</tr>\n";
  }
  page << "</table>\n<p class=\"note\">" << xml_text(t.note) << "</p>\n";
}

// The scenario of one run: what ran, and every parameter with its source.
void scenario_block(std::ostringstream& page, const std::string& label, const RunFolder& run) {
  const json& sc = run.summary["scenario"];
  page << "<h3>" << xml_text(label) << "</h3>\n<table>\n";
  auto row = [&](const std::string& name, const std::string& value) {
    page << "<tr>" << th(name) << td(value) << "</tr>\n";
  };
  row("run folder", run.dir);
  row("scenario", value_text(json_find(sc, "/name")));
  if (const json* d = json_find(sc, "/description");
      d && d->is_string() && !d->get<std::string>().empty())
    row("description", d->get<std::string>());
  row("seed", value_text(json_find(sc, "/seed")));
  row("gpumux version", value_text(json_find(run.summary, "/gpumux_version")));
  if (const json* groups = json_find(sc, "/cluster/node_groups"); groups && groups->is_array()) {
    for (const auto& g : *groups) {
      row("node group " + value_text(json_find(g, "/name")),
          value_text(json_find(g, "/nodes")) + " nodes x " +
              value_text(json_find(g, "/gpus_per_node")) + " GPUs " +
              value_text(json_find(g, "/device")));
    }
  }
  row("total GPUs", value_text(json_find(sc, "/cluster/total_gpus")));
  row("sharing model", value_text(json_find(sc, "/sharing/model")));
  row("scheduler", value_text(json_find(sc, "/scheduler/queue")) + " + " +
                       value_text(json_find(sc, "/scheduler/placement")));
  const json* file = json_find(sc, "/trace/file");
  row("trace", file ? value_text(file) + " (" + value_text(json_find(sc, "/trace/format")) + ")"
                    : "generated");
  if (const json* limit = json_find(sc, "/limits/max_time_s"); limit)
    row("time limit (s)", value_text(limit));
  page << "</table>\n";

  page << "<table><tr><th>sharing parameter</th><th>value</th><th>unit</th><th>source</th></tr>\n";
  const json* params = json_find(sc, "/sharing/parameters");
  if (params && params->is_array() && !params->empty()) {
    for (const auto& p : *params) {
      page << "<tr>" << th(value_text(json_find(p, "/name")))
           << td(value_text(json_find(p, "/value"))) << td(value_text(json_find(p, "/unit")))
           << td(value_text(json_find(p, "/source"))) << "</tr>\n";
    }
  } else {
    page << "<tr><td colspan=\"4\">the model has no parameters</td></tr>\n";
  }
  page << "</table>\n";

  if (const json* defaults = json_find(run.summary, "/trace/defaults_used");
      defaults && defaults->is_object() && !defaults->empty()) {
    page << "<table><tr><th>trace field filled by a default</th><th>value</th><th>source</th>"
            "<th>rows</th></tr>\n";
    for (const auto& [field, use] : defaults->items()) {
      page << "<tr>" << th(field) << td(value_text(json_find(use, "/value")))
           << td(value_text(json_find(use, "/source"))) << td(value_text(json_find(use, "/rows")))
           << "</tr>\n";
    }
    page << "</table>\n";
  }
}

}  // namespace

ReportPage build_report_page(const ReportInputs& inputs) {
  const std::vector<ReportVariant>& variants = inputs.variants;
  const std::vector<PlanFolder>& plans = inputs.plans;
  std::vector<ReportFigure> figures;
  std::ostringstream page;
  std::string title = "gpumux report";
  if (!inputs.title.empty()) {
    title += ": " + inputs.title;
  } else if (!variants.empty()) {
    if (const json* name = json_find(variants.front().runs.front().summary, "/scenario/name"); name)
      title += ": " + value_text(name);
  } else if (plans.empty()) {
    // A sweep with no run ended yet (the table of n/a and the note say so), or packs alone.
  } else if (const json* name = json_find(plans.front().doc, "/scenario"); name) {
    title += ": " + value_text(name);
  } else if (const json* by_load = json_find(plans.front().doc, "/plans/0/scenario"); by_load) {
    title += ": " + value_text(by_load);
  }
  page << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<title>" << xml_text(title) << "</title>\n"
       << "<link rel=\"icon\" href=\"data:,\">\n<style>" << html::kPageStyle
       << "</style>\n</head>\n<body>\n"
       << "<h1>" << xml_text(title) << "</h1>\n<p>Inputs:";
  for (const auto& d : inputs.shown) page << " <code>" << xml_text(display_dir(d)) << "</code>";
  const bool packs_alone =
      variants.empty() && plans.empty() && inputs.tables.empty() && !inputs.packs.empty();
  if (packs_alone) {
    page << ".</p>\n";
  } else {
    page << ". " << variants.size() << (variants.size() == 1 ? " variant" : " variants")
         << ". Charts with several seeds: time series as the mean over the seeds with a band "
            "from the lowest to the highest seed, CDFs over every seed's jobs.</p>\n";
  }
  for (const auto& note : inputs.notes)
    page << "<p class=\"note\">" << xml_text(note) << "</p>\n";
  page << "<nav>";
  if (!plans.empty()) page << "<a href=\"#plan\">capacity plan</a>";
  if (!inputs.packs.empty()) page << "<a href=\"#pack\">packing</a>";
  if (!inputs.tables.empty()) page << "<a href=\"#compare\">comparison</a>";
  if (std::any_of(inputs.tables.begin(), inputs.tables.end(),
                  [](const SeedTable& t) { return t.columns.size() > 1; })) {
    page << "<a href=\"#bars\">metrics across variants</a>";
  }
  if (!inputs.axis_charts.empty()) page << "<a href=\"#axes\">metrics against sweep axes</a>";
  if (!variants.empty()) {
    page << "<a href=\"#over-time\">over time</a><a href=\"#cdfs\">JCT and queueing</a>"
            "<a href=\"#metrics\">key metrics</a><a href=\"#requests\">requests</a>"
            "<a href=\"#faults\">faults</a><a href=\"#mig\">MIG slots</a>"
            "<a href=\"#scenario\">scenario</a>";
  }
  page << "</nav>\n";

  if (!plans.empty()) {
    page << "<section id=\"plan\">\n<h2>Capacity plan</h2>\n";
    for (const auto& p : plans) plan_section(page, figures, p);
    page << "</section>\n";
  }
  if (!inputs.packs.empty()) {
    page << "<section id=\"pack\">\n<h2>Packing (GPU allocation against arrived request)</h2>\n";
    for (const auto& p : inputs.packs) pack_section(page, figures, p);
    page << "</section>\n";
  }
  if (!inputs.tables.empty()) {
    page << "<section id=\"compare\">\n<h2>Comparison</h2>\n";
    for (const auto& t : inputs.tables) seed_table(page, t);
    page << "</section>\n";
  }
  if (std::any_of(inputs.tables.begin(), inputs.tables.end(),
                  [](const SeedTable& t) { return t.columns.size() > 1; })) {
    page << "<section id=\"bars\">\n<h2>Metrics across variants</h2>\n";
    for (const auto& t : inputs.tables) bar_charts(page, figures, t, variants);
    page << "</section>\n";
  }
  if (!inputs.axis_charts.empty()) {
    page << "<section id=\"axes\">\n<h2>Metrics against sweep axes</h2>\n<div class=\"charts\">\n";
    for (const auto& spec : inputs.axis_charts) chart(page, figures, spec);
    page << "</div>\n<p class=\"note\">Per numeric axis of a sweep, each metric of its table: one "
            "line per model and value of the other axes, each point the mean over the seeds that "
            "ended, the band its 95% interval (Student t, cut to the values the metric can take; "
            "none "
            "with one seed).</p>\n"
            "</section>\n";
  }
  if (variants.empty()) {
    // A plan alone (its runs are not kept), or a sweep with no run ended: nothing to chart.
    if (!packs_alone) page << "<p class=\"note\">No run ended in these folders: no charts.</p>\n";
    page << left_out_section(figures) << "</body>\n</html>\n";
    return {page.str(), std::move(figures)};
  }

  page << "<section id=\"over-time\">\n<h2>Utilization and allocation over time</h2>\n"
          "<div class=\"charts\">\n";
  ChartSpec ratio = over_time_chart(variants, "GPU allocation ratio", "share of GPUs with a job",
                                    &RunFolder::allocation_ratio);
  ratio.y_min = 0.0;
  ratio.y_max = 1.0;
  chart(page, figures, ratio);
  ChartSpec busy = over_time_chart(variants, "SM-busy utilization", "share of GPU time computing",
                                   &RunFolder::sm_busy);
  busy.y_min = 0.0;
  busy.y_max = 1.0;
  chart(page, figures, busy);
  chart(page, figures,
        over_time_chart(variants, "GPUs in use", "GPUs", &RunFolder::allocated_gpus));
  chart(page, figures, over_time_chart(variants, "Queued jobs", "jobs", &RunFolder::queued));
  page << "</div>\n";
  band_caption(page, variants);
  page << "</section>\n";

  page << "<section id=\"cdfs\">\n<h2>Job completion time and queueing delay</h2>\n"
          "<div class=\"charts\">\n";
  const CdfChart cdfs[] = {
      cdf_chart(variants, "JCT CDF", "job completion time (s)", &RunFolder::jct_s, true),
      cdf_chart(variants, "Queueing-delay CDF", "queueing delay (s)", &RunFolder::queue_s, true)};
  for (const auto& c : cdfs) chart(page, figures, c.spec);
  page << "</div>\n<p class=\"note\">Finished jobs only; rejected, failed and unfinished jobs "
          "are counted under Key metrics and Faults. Log time axes, so that the tails show; a "
          "job at 0 s has no place on them and is drawn at the left edge, where the line starts "
          "at the share of such jobs.";
  for (const auto& c : cdfs) {
    if (c.at_left_edge.empty()) continue;
    page << " " << xml_text(c.spec.title) << ", jobs at 0 s (at the left edge):";
    for (std::size_t i = 0; i < c.at_left_edge.size(); ++i) {
      page << (i ? "; " : " ") << xml_text(c.at_left_edge[i]);
    }
    page << ".";
  }
  page << "</p>\n</section>\n";

  page << "<section id=\"metrics\">\n<h2>Key metrics</h2>\n";
  metric_table(page, variants, kKeyMetrics);
  if (std::any_of(variants.begin(), variants.end(),
                  [](const ReportVariant& v) { return v.runs.size() > 1; })) {
    page << "<p class=\"note\">Variants with several seeds: each value is the mean over the "
            "seeds that have it (the comparison above gives the 95% intervals); the time series, "
            "CDFs and the scenario blocks are drawn as their captions say.</p>\n";
  }
  const bool any_kinds = std::any_of(variants.begin(), variants.end(), [](const ReportVariant& v) {
    return v.runs.front().summary["metrics"].contains("by_kind");
  });
  if (any_kinds) {
    page << "<h3>By kind of job</h3>\n<p class=\"note\">These runs have services beside batch "
            "jobs: the JCT and queueing rows above are over the batch jobs (training and batch "
            "inference) alone, since a service's completion time is its lifetime. Each kind's "
            "own rows (-: no job of that kind):</p>\n";
    metric_table(page, variants, kKindMetrics);
  }
  page << "</section>\n";
  page << queue_reason_section(variants);

  page << "<section id=\"requests\">\n<h2>Request latency</h2>\n";
  const bool any_requests =
      std::any_of(variants.begin(), variants.end(), [](const ReportVariant& v) {
        return v.runs.front().summary["metrics"].contains("requests");
      });
  if (any_requests) {
    page << "<div class=\"charts\">\n";
    chart(page, figures, request_cdf_chart(variants));
    page << "</div>\n";
    metric_table(page, variants, kRequestMetrics);
    const bool any_llm = std::any_of(variants.begin(), variants.end(), [](const ReportVariant& v) {
      const json& metrics = v.runs.front().summary["metrics"];
      return metrics.contains("requests") && metrics["requests"].contains("ttft_ms");
    });
    if (any_llm) metric_table(page, variants, kLlmMetrics);
    page << endpoint_section(variants);
  } else {
    page << "<p class=\"note\">No inference services in these runs.</p>\n";
  }
  page << "</section>\n";

  page << "<section id=\"faults\">\n<h2>Out-of-memory and fault events over time</h2>\n"
          "<div class=\"charts\">\n";
  chart(page, figures,
        faults_over_time_chart(variants, "Out-of-memory events", &RunFolder::memory_faults));
  chart(page, figures,
        faults_over_time_chart(variants, "Fatal GPU faults", &RunFolder::fatal_faults));
  chart(page, figures, faults_over_time_chart(variants, "Jobs killed", &RunFolder::jobs_killed));
  chart(page, figures, faults_over_time_chart(variants, "Jobs failed", &RunFolder::failed));
  page << "</div>\n";
  band_caption(page, variants);
  metric_table(page, variants, kFailureMetrics);
  page << "</section>\n";

  page << "<section id=\"mig\">\n<h2>MIG slice occupancy</h2>\n";
  const bool any_slots = std::any_of(variants.begin(), variants.end(), [](const ReportVariant& v) {
    return v.runs.front().summary["metrics"].contains("slots");
  });
  if (any_slots) {
    page << "<div class=\"charts\">\n";
    ChartSpec busy_slices;
    busy_slices.title = "Busy share of MIG slices";
    busy_slices.x_label = "simulated time (s)";
    busy_slices.y_label = "busy slices / slices of split GPUs";
    busy_slices.y_min = 0.0;
    busy_slices.y_max = 1.0;
    busy_slices.no_data_reason = "no data: no slot_timeseries.csv in these runs";
    ChartSpec fragmented = busy_slices;
    fragmented.title = "Fragmented share of MIG slices";
    fragmented.y_label = "free slices no queued job fits / slices";
    for (const auto& v : variants) {
      std::vector<const std::vector<ChartPoint>*> busy_seeds, fragmented_seeds;
      for (const auto& run : v.runs) {
        if (!run.has_slot_timeseries) continue;
        busy_seeds.push_back(&run.slice_busy_share);
        fragmented_seeds.push_back(&run.slice_fragmented_share);
      }
      if (busy_seeds.empty()) continue;
      busy_slices.series.push_back(seed_mean_series(v.label, busy_seeds));
      fragmented.series.push_back(seed_mean_series(v.label, fragmented_seeds));
    }
    chart(page, figures, busy_slices);
    chart(page, figures, fragmented);
    page << "</div>\n";
    band_caption(page, variants);
    metric_table(page, variants, kSlotMetrics);
    page << "<table><tr><th>variant</th><th>profile</th><th>mean instances</th>"
            "<th>mean busy</th><th>occupancy</th></tr>\n";
    for (const auto& v : variants) {
      const json* profiles = json_find(v.runs.front().summary["metrics"], "/slots/profiles");
      if (profiles == nullptr || !profiles->is_object()) continue;
      for (const auto& [name, p] : profiles->items()) {
        page << "<tr>" << td(v.label) << th(name) << td(value_text(json_find(p, "/mean_instances")))
             << td(value_text(json_find(p, "/mean_busy")))
             << td(value_text(json_find(p, "/occupancy"))) << "</tr>\n";
      }
    }
    page << "</table>\n<p class=\"note\">Time-weighted over the run, weighted by compute "
            "slices of GPUs while split; occupancy = busy instances / instances.</p>\n";
  } else {
    page << "<p class=\"note\">No variant splits GPUs into slots (MIG).</p>\n";
  }
  page << "</section>\n";

  page << "<section id=\"scenario\">\n<h2>Scenario, parameters and their sources</h2>\n";
  for (const auto& v : variants) scenario_block(page, v.label, v.runs.front());
  page << "</section>\n" << left_out_section(figures) << "</body>\n</html>\n";
  return {page.str(), std::move(figures)};
}

std::string build_html_report(const ReportInputs& inputs) { return build_report_page(inputs).html; }

ReportInputs read_run_and_plan_folders(const std::vector<std::string>& dirs,
                                       const std::vector<std::string>& shown) {
  if (dirs.empty()) throw InputError("gpumux report", "", "expected at least one folder");
  ReportInputs inputs;
  inputs.shown = shown.empty() ? dirs : shown;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    read_report_folder(dirs[i], inputs.shown.at(i), inputs);
  }
  return inputs;
}

void write_html_report(const ReportInputs& inputs, const std::string& output,
                       const std::string& data_dir) {
  const ReportPage page = build_report_page(inputs);
  std::vector<std::unique_ptr<AtomicFile>> files;
  if (!data_dir.empty()) {
    for (const auto& f : figure_files(page.figures)) {
      files.push_back(std::make_unique<AtomicFile>((fs::path(data_dir) / f.name).string()));
      files.back()->stream() << f.csv;
    }
  }
  files.push_back(std::make_unique<AtomicFile>(output));
  files.back()->stream() << page.html;
  for (auto& f : files) f->commit();
}

}  // namespace gpumux
