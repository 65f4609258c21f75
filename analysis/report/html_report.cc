#include "analysis/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "sim/base/atomic_file.h"
#include "analysis/report/svg_chart.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "traces/io/csv_reader.h"

namespace gpumux {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kHuge = 1e300;

// One run folder, read.
struct RunData {
  std::string dir;
  json summary;
  bool has_timeseries = false;
  bool has_jobs = false;
  // Over time (timeseries.csv); the fault columns only when the file has them.
  std::vector<ChartPoint> allocation_ratio, sm_busy, allocated_gpus, queued;
  std::optional<std::vector<ChartPoint>> failed, memory_faults, fatal_faults, jobs_killed;
  // Finished jobs (jobs.csv).
  std::vector<double> jct_s, queue_s;
  // Slot state over time (slot_timeseries.csv, models with slots): busy and fragmented shares
  // of the split GPUs' slices.
  bool has_slot_timeseries = false;
  std::vector<ChartPoint> slice_busy_share, slice_fragmented_share;
};

struct Variant {
  std::string label;
  std::vector<RunData> runs;  // one per seed; the first gives the time series
};

struct CompareData {
  std::string dir;
  json doc;  // compare.json
};

struct PlanData {
  std::string dir;
  json doc;  // plan.json
};

std::string path_text(const fs::path& p) { return p.generic_string(); }

// A folder argument as shown on the page: as given, without trailing slashes.
std::string display_dir(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

// Header columns by name; a required one missing is an error at line 1.
class Columns {
 public:
  Columns(const std::vector<std::string>& header, const std::string& file) : file_(file) {
    for (std::size_t i = 0; i < header.size(); ++i) index_[header[i]] = i;
    count_ = header.size();
  }
  std::size_t required(const std::string& name) const {
    const auto it = index_.find(name);
    if (it == index_.end()) throw InputError(file_ + ":1", name, "required column is missing");
    return it->second;
  }
  std::optional<std::size_t> optional(const std::string& name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? std::nullopt : std::optional<std::size_t>(it->second);
  }
  std::size_t count() const { return count_; }

 private:
  std::string file_;
  std::map<std::string, std::size_t> index_;
  std::size_t count_ = 0;
};

void check_field_count(const CsvReader& csv, const std::vector<std::string>& fields,
                       std::size_t expected) {
  if (fields.size() != expected) {
    throw InputError(
        csv.where(), "",
        "expected " + std::to_string(expected) + " fields, got " + std::to_string(fields.size()));
  }
}

void read_timeseries(const std::string& file, RunData& run) {
  CsvReader csv(file);
  std::vector<std::string> fields;
  if (!csv.next(fields)) throw InputError(file, "", "empty file: expected a header line");
  const Columns c(fields, file);
  const std::size_t time = c.required("time_s"), ratio = c.required("allocation_ratio"),
                    busy = c.required("sm_busy"), allocated = c.required("allocated_gpus"),
                    queued = c.required("queued");
  struct Optional {
    std::optional<std::size_t> column;
    std::optional<std::vector<ChartPoint>>* target;
    const char* name;
  };
  std::vector<Optional> faults = {
      {c.optional("failed"), &run.failed, "failed"},
      {c.optional("memory_faults"), &run.memory_faults, "memory_faults"},
      {c.optional("fatal_faults"), &run.fatal_faults, "fatal_faults"},
      {c.optional("jobs_killed"), &run.jobs_killed, "jobs_killed"}};
  for (auto& f : faults) {
    if (f.column) f.target->emplace();
  }
  while (csv.next(fields)) {
    check_field_count(csv, fields, c.count());
    const std::string where = csv.where();
    const double t = parse_number_cell(fields[time], where, "time_s", -kHuge, kHuge);
    auto value = [&](std::size_t column, const char* name) {
      return parse_number_cell(fields[column], where, name, -kHuge, kHuge);
    };
    run.allocation_ratio.push_back({t, value(ratio, "allocation_ratio")});
    run.sm_busy.push_back({t, value(busy, "sm_busy")});
    run.allocated_gpus.push_back({t, value(allocated, "allocated_gpus")});
    run.queued.push_back({t, value(queued, "queued")});
    for (auto& f : faults) {
      if (f.column) (*f.target)->push_back({t, value(*f.column, f.name)});
    }
  }
  run.has_timeseries = true;
}

void read_slot_timeseries(const std::string& file, RunData& run) {
  CsvReader csv(file);
  std::vector<std::string> fields;
  if (!csv.next(fields)) throw InputError(file, "", "empty file: expected a header line");
  const Columns c(fields, file);
  const std::size_t time = c.required("time_s"), slices = c.required("slices"),
                    busy = c.required("busy_slices"), fragmented = c.required("fragmented_slices");
  while (csv.next(fields)) {
    check_field_count(csv, fields, c.count());
    const std::string where = csv.where();
    const double t = parse_number_cell(fields[time], where, "time_s", -kHuge, kHuge);
    const double n = parse_number_cell(fields[slices], where, "slices", 0.0, kHuge);
    const double b = parse_number_cell(fields[busy], where, "busy_slices", 0.0, kHuge);
    const double f = parse_number_cell(fields[fragmented], where, "fragmented_slices", 0.0, kHuge);
    if (n <= 0) continue;  // no GPU split at t: no share to draw (a gap, not a zero)
    run.slice_busy_share.push_back({t, b / n});
    run.slice_fragmented_share.push_back({t, f / n});
  }
  run.has_slot_timeseries = true;
}

void read_jobs(const std::string& file, RunData& run) {
  CsvReader csv(file);
  std::vector<std::string> fields;
  if (!csv.next(fields)) throw InputError(file, "", "empty file: expected a header line");
  const Columns c(fields, file);
  const std::size_t state = c.required("state"), jct = c.required("jct_s"),
                    queue = c.required("queue_s");
  while (csv.next(fields)) {
    check_field_count(csv, fields, c.count());
    if (fields[state] != "finished") continue;
    const std::string where = csv.where();
    run.jct_s.push_back(parse_number_cell(fields[jct], where, "jct_s", -kHuge, kHuge));
    run.queue_s.push_back(parse_number_cell(fields[queue], where, "queue_s", -kHuge, kHuge));
  }
  run.has_jobs = true;
}

RunData read_run(const fs::path& dir) {
  RunData run;
  run.dir = path_text(dir);
  const std::string summary_file = path_text(dir / "summary.json");
  run.summary = read_json_file(summary_file);
  for (const char* key : {"scenario", "metrics"}) {
    if (!run.summary.is_object() || !run.summary.contains(key) || !run.summary[key].is_object()) {
      throw InputError(summary_file + "#/" + key, key,
                       "expected an object (a summary.json written by gpumux run)");
    }
  }
  if (fs::is_regular_file(dir / "timeseries.csv")) {
    read_timeseries(path_text(dir / "timeseries.csv"), run);
  }
  if (fs::is_regular_file(dir / "jobs.csv")) read_jobs(path_text(dir / "jobs.csv"), run);
  if (fs::is_regular_file(dir / "slot_timeseries.csv")) {
    read_slot_timeseries(path_text(dir / "slot_timeseries.csv"), run);
  }
  return run;
}

// A plan folder (plan.json, from gpumux plan --out): its models must be an array of objects
// with a name; everything else is read where drawn, a missing value shown as "-".
PlanData read_plan(const fs::path& dir) {
  PlanData data;
  data.dir = display_dir(path_text(dir));
  const std::string file = path_text(dir / "plan.json");
  data.doc = read_json_file(file);
  const json& doc = data.doc;
  if (!doc.is_object() || !doc.contains("models") || !doc["models"].is_array() ||
      doc["models"].empty()) {
    throw InputError(file + "#/models", "models",
                     "expected a non-empty array (a plan.json written by gpumux plan --out)");
  }
  for (std::size_t i = 0; i < doc["models"].size(); ++i) {
    const json& m = doc["models"][i];
    if (!m.is_object() || !m.contains("model") || !m["model"].is_string()) {
      throw InputError(file + "#/models/" + std::to_string(i), "model",
                       "expected an object with a model name");
    }
  }
  return data;
}

// The variants of a compare folder, in compare.json's order, one run per seed.
// `shown`: the folder as the page names it (a compare writes its report from a temporary
// folder that is renamed afterwards).
std::vector<Variant> read_compare(const fs::path& dir, const std::string& shown,
                                  const std::string& prefix, CompareData& data) {
  const std::string file = path_text(dir / "compare.json");
  data.dir = display_dir(shown);
  data.doc = read_json_file(file);
  const json& doc = data.doc;
  auto require_array = [&](const char* key) {
    if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array() || doc[key].empty()) {
      throw InputError(file + "#/" + key, key,
                       "expected a non-empty array (a compare.json written by gpumux compare)");
    }
  };
  require_array("seeds");
  require_array("variants");
  require_array("metrics");
  for (std::size_t i = 0; i < doc["metrics"].size(); ++i) {
    const json& m = doc["metrics"][i];
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string() || !m.contains("label") ||
        !m["label"].is_string()) {
      throw InputError(file + "#/metrics/" + std::to_string(i), "name",
                       "expected {\"name\": string, \"label\": string}");
    }
  }
  std::vector<Variant> variants;
  for (std::size_t v = 0; v < doc["variants"].size(); ++v) {
    const json& variant = doc["variants"][v];
    const std::string pointer = file + "#/variants/" + std::to_string(v);
    if (!variant.is_object() || !variant.contains("model") || !variant["model"].is_string() ||
        !variant.contains("metrics") || !variant["metrics"].is_object()) {
      throw InputError(pointer, "model", "expected an object with a model name and metrics");
    }
    Variant out;
    out.label = prefix + variant["model"].get<std::string>();
    for (std::size_t s = 0; s < doc["seeds"].size(); ++s) {
      const json& seed = doc["seeds"][s];
      if (!seed.is_number_unsigned()) {
        throw InputError(file + "#/seeds/" + std::to_string(s), "seeds",
                         "expected a non-negative integer");
      }
      const fs::path run_dir = dir / variant["model"].get<std::string>() /
                               ("seed-" + std::to_string(seed.get<std::uint64_t>()));
      if (!fs::is_directory(run_dir)) {
        throw InputError(path_text(run_dir), "", "run folder named by " + file + " is missing");
      }
      out.runs.push_back(read_run(run_dir));
      out.runs.back().dir = path_text(fs::path(shown) / variant["model"].get<std::string>() /
                                      ("seed-" + std::to_string(seed.get<std::uint64_t>())));
    }
    variants.push_back(std::move(out));
  }
  return variants;
}

// The value at a JSON pointer, or nullptr when any step is missing.
// A value of the wrong type on the way (a hand-edited file) also counts as missing.
const json* find(const json& j, const std::string& pointer) {
  try {
    const json::json_pointer p(pointer);
    return j.contains(p) ? &j.at(p) : nullptr;
  } catch (const json::exception&) {
    return nullptr;
  }
}

std::string value_text(const json* v) {
  if (v == nullptr) return "-";
  if (v->is_null()) return "n/a";
  if (v->is_number()) return short_number(v->get<double>());
  if (v->is_string()) return v->get<std::string>();
  return v->dump();
}

// A table cell: escaped text.
std::string td(const std::string& text) { return "<td>" + escape_xml(text) + "</td>"; }
std::string th(const std::string& text) { return "<th>" + escape_xml(text) + "</th>"; }

void chart(std::ostringstream& page, ChartSpec spec) { page << svg_chart(spec); }

// One series per variant from the first run's `member`.
ChartSpec over_time(const std::vector<Variant>& variants, std::string title, std::string y_label,
                    std::vector<ChartPoint> RunData::*member) {
  ChartSpec spec;
  spec.title = std::move(title);
  spec.x_label = "simulated time (s)";
  spec.y_label = std::move(y_label);
  spec.no_data_reason = "no data: no timeseries.csv in these runs";
  for (const auto& v : variants) {
    const RunData& run = v.runs.front();
    spec.series.push_back({v.label, run.*member});
  }
  return spec;
}

ChartSpec faults_over_time(const std::vector<Variant>& variants, std::string title,
                           std::optional<std::vector<ChartPoint>> RunData::*member) {
  ChartSpec spec;
  spec.title = std::move(title);
  spec.x_label = "simulated time (s)";
  spec.y_label = "count so far";
  spec.step = true;
  spec.no_data_reason = "no data: the timeseries.csv files have no such column";
  for (const auto& v : variants) {
    const auto& series = v.runs.front().*member;
    if (series) spec.series.push_back({v.label, *series});
  }
  return spec;
}

ChartSpec cdf(const std::vector<Variant>& variants, std::string title, std::string x_label,
              std::vector<double> RunData::*member) {
  ChartSpec spec;
  spec.title = std::move(title);
  spec.x_label = std::move(x_label);
  spec.y_label = "share of finished jobs";
  spec.step = true;
  spec.y_min = 0.0;
  spec.y_max = 1.0;
  spec.no_data_reason = "no data: no finished job in jobs.csv (or no jobs.csv)";
  for (const auto& v : variants) {
    std::vector<double> pooled;
    for (const auto& run : v.runs)
      pooled.insert(pooled.end(), (run.*member).begin(), (run.*member).end());
    spec.series.push_back({v.label, cdf_points(std::move(pooled), kMaxChartPoints)});
  }
  return spec;
}

// Request-latency CDFs from summary.json's `metrics.requests.latency_cdf_ms` (the first seed's
// run: the points are bins of a histogram, not single requests, so seeds are not pooled).
ChartSpec request_cdf(const std::vector<Variant>& variants) {
  ChartSpec spec;
  spec.title = "Request-latency CDF";
  spec.x_label = "request latency (ms)";
  spec.y_label = "share of served requests";
  spec.step = true;
  spec.y_min = 0.0;
  spec.y_max = 1.0;
  spec.no_data_reason = "no data: no request served (or a summary.json without latency_cdf_ms)";
  for (const auto& v : variants) {
    const json* points = find(v.runs.front().summary["metrics"], "/requests/latency_cdf_ms");
    if (points == nullptr || !points->is_array()) continue;
    std::vector<ChartPoint> series;
    for (const json& p : *points) {
      if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number()) {
        series.push_back({p[0].get<double>(), p[1].get<double>()});
      }
    }
    spec.series.push_back({v.label, downsample(series, kMaxChartPoints)});
  }
  return spec;
}

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

constexpr MetricRow kSlotMetrics[] = {
    {"slice utilization", "/slots/slice_utilization"},
    {"memory allocation share", "/slots/memory_allocation_share"},
    {"free slice share", "/slots/free_slice_share"},
    {"unavailable slice share", "/slots/unavailable_slice_share"},
    {"fragmentation", "/slots/fragmentation"},
    {"mean split GPUs", "/slots/mean_split_gpus"},
    {"fit-blocked jobs", "/slots/fit_blocked/jobs"},
};

// Rows = metrics, columns = variants, values from each variant's first run.
template <std::size_t N>
void metric_table(std::ostringstream& page, const std::vector<Variant>& variants,
                  const MetricRow (&rows)[N]) {
  page << "<table><tr><th>metric</th>";
  for (const auto& v : variants) page << th(v.label);
  page << "</tr>\n";
  for (const auto& row : rows) {
    page << "<tr>" << th(row.label);
    for (const auto& v : variants) {
      page << td(value_text(find(v.runs.front().summary["metrics"], row.pointer)));
    }
    page << "</tr>\n";
  }
  page << "</table>\n";
}

void compare_table(std::ostringstream& page, const CompareData& c) {
  const json& doc = c.doc;
  const std::size_t seeds = doc["seeds"].size();
  page << "<h3>" << escape_xml(c.dir) << ": scenario '"
       << escape_xml(value_text(find(doc, "/scenario/name"))) << "', " << seeds
       << (seeds == 1 ? " seed" : " seeds") << "</h3>\n";
  page << "<table><tr><th>metric</th>";
  for (const auto& v : doc["variants"]) page << th(v["model"].get<std::string>());
  page << "</tr>\n";
  for (const auto& m : doc["metrics"]) {
    const std::string name = m["name"].get<std::string>();
    page << "<tr>" << th(m["label"].get<std::string>());
    for (const auto& v : doc["variants"]) {
      const json* cell = v["metrics"].contains(name) ? &v["metrics"][name] : nullptr;
      std::string text = "-";
      if (cell != nullptr && cell->is_object()) {
        const json* mean = find(*cell, "/mean");
        const json* half = find(*cell, "/ci95_half_width");
        const json* n = find(*cell, "/n");
        if (mean != nullptr && mean->is_number()) {
          text = short_number(mean->get<double>());
          if (half != nullptr && half->is_number()) {
            // Rounding noise of equal values (e.g. 8.6e-14) is a zero-width interval.
            const double h = half->get<double>();
            const double scale = std::max(1.0, std::abs(mean->get<double>()));
            text += " \u00b1 " + short_number(std::abs(h) < 1e-9 * scale ? 0.0 : h);
          }
        } else if (n != nullptr && n->is_number_unsigned() && n->get<std::size_t>() > 0) {
          text =
              "n/a (" + std::to_string(n->get<std::size_t>()) + "/" + std::to_string(seeds) + ")";
        } else {
          text = "n/a";
        }
      }
      page << td(text);
    }
    page << "</tr>\n";
  }
  page << "</table>\n<p class=\"note\">mean \u00b1 half-width of the 95% confidence interval "
          "of the mean over the seeds (Student t); one seed: the run's value. n/a: an empty "
          "set.</p>\n";
}

std::string percent_text(const json* v) {
  if (v == nullptr || !v->is_number()) return value_text(v);
  return short_number(100.0 * v->get<double>()) + "%";
}

// The plan of one plan folder: per model the answer, its saving and its metrics there, the
// size below it, and where each model's parameters came from.
void plan_table(std::ostringstream& page, const PlanData& p) {
  const json& doc = p.doc;
  page << "<h3>" << escape_xml(p.dir) << ": scenario '"
       << escape_xml(value_text(find(doc, "/scenario"))) << "', seed "
       << escape_xml(value_text(find(doc, "/seed"))) << "</h3>\n<p>Objectives:";
  if (const json* objectives = find(doc, "/objectives"); objectives && objectives->is_array()) {
    for (const auto& o : *objectives) {
      page << " <code>" << escape_xml(value_text(find(o, "/objective"))) << "</code>";
    }
  }
  page << ". Scheduler " << escape_xml(value_text(find(doc, "/scheduler"))) << ", up to "
       << escape_xml(value_text(find(doc, "/max_nodes"))) << " nodes, "
       << escape_xml(value_text(find(doc, "/runs"))) << " runs.</p>\n";
  page << "<table><tr><th>model</th><th>nodes</th><th>GPUs</th><th>saving vs exclusive</th>"
          "<th>GPU allocation</th><th>SM-busy</th><th>queue p95 (s)</th><th>JCT p95 (s)</th>"
          "<th>kills</th><th>one size below</th><th>parameters from</th></tr>\n";
  for (const auto& m : doc["models"]) {
    page << "<tr>" << th(m["model"].get<std::string>());
    const json* met = find(m, "/met");
    if (met == nullptr || !met->is_boolean() || !met->get<bool>()) {
      page << "<td colspan=\"9\">not met within " << escape_xml(value_text(find(doc, "/max_nodes")))
           << " nodes (largest tried: " << escape_xml(value_text(find(m, "/largest_tried/nodes")))
           << " nodes, " << escape_xml(value_text(find(m, "/largest_tried/gpus")))
           << " GPUs)</td>";
    } else {
      std::string saving = "-";
      if (const json* g = find(m, "/saving_gpus"); g && g->is_number()) {
        saving = value_text(g) + " (" + short_number(find(m, "/saving_pct")->get<double>()) + "%)";
      }
      const json* below = find(m, "/one_below/nodes");
      page << td(value_text(find(m, "/nodes"))) << td(value_text(find(m, "/gpus"))) << td(saving)
           << td(percent_text(find(m, "/at_answer/gpu_allocation_ratio")))
           << td(percent_text(find(m, "/at_answer/sm_busy_utilization")))
           << td(value_text(find(m, "/at_answer/queueing_delay_s/p95")))
           << td(value_text(find(m, "/at_answer/jct_s/p95")))
           << td(value_text(find(m, "/at_answer/failures/jobs_killed")))
           << td(below && below->is_number() ? value_text(below) + " nodes fail"
                                             : "none (smallest size)");
    }
    page << td(value_text(find(m, "/params_source"))) << "</tr>\n";
  }
  page << "</table>\n<p class=\"note\">The smallest cluster (the scenario's node groups "
          "scaled together) meeting every objective, per sharing model; metrics at that size. "
          "Saving: GPUs fewer than exclusive's answer.</p>\n";
}

// The scenario of one run: what ran, and every parameter with its source.
void scenario_block(std::ostringstream& page, const std::string& label, const RunData& run) {
  const json& sc = run.summary["scenario"];
  page << "<h3>" << escape_xml(label) << "</h3>\n<table>\n";
  auto row = [&](const std::string& name, const std::string& value) {
    page << "<tr>" << th(name) << td(value) << "</tr>\n";
  };
  row("run folder", run.dir);
  row("scenario", value_text(find(sc, "/name")));
  if (const json* d = find(sc, "/description");
      d && d->is_string() && !d->get<std::string>().empty())
    row("description", d->get<std::string>());
  row("seed", value_text(find(sc, "/seed")));
  row("gpumux version", value_text(find(run.summary, "/gpumux_version")));
  if (const json* groups = find(sc, "/cluster/node_groups"); groups && groups->is_array()) {
    for (const auto& g : *groups) {
      row("node group " + value_text(find(g, "/name")),
          value_text(find(g, "/nodes")) + " nodes x " + value_text(find(g, "/gpus_per_node")) +
              " GPUs " + value_text(find(g, "/device")));
    }
  }
  row("total GPUs", value_text(find(sc, "/cluster/total_gpus")));
  row("sharing model", value_text(find(sc, "/sharing/model")));
  row("scheduler", value_text(find(sc, "/scheduler/queue")) + " + " +
                       value_text(find(sc, "/scheduler/placement")));
  const json* file = find(sc, "/trace/file");
  row("trace",
      file ? value_text(file) + " (" + value_text(find(sc, "/trace/format")) + ")" : "generated");
  if (const json* limit = find(sc, "/limits/max_time_s"); limit)
    row("time limit (s)", value_text(limit));
  page << "</table>\n";

  page << "<table><tr><th>sharing parameter</th><th>value</th><th>unit</th><th>source</th></tr>\n";
  const json* params = find(sc, "/sharing/parameters");
  if (params && params->is_array() && !params->empty()) {
    for (const auto& p : *params) {
      page << "<tr>" << th(value_text(find(p, "/name"))) << td(value_text(find(p, "/value")))
           << td(value_text(find(p, "/unit"))) << td(value_text(find(p, "/source"))) << "</tr>\n";
    }
  } else {
    page << "<tr><td colspan=\"4\">the model has no parameters</td></tr>\n";
  }
  page << "</table>\n";

  if (const json* defaults = find(run.summary, "/trace/defaults_used");
      defaults && defaults->is_object() && !defaults->empty()) {
    page << "<table><tr><th>trace field filled by a default</th><th>value</th><th>source</th>"
            "<th>rows</th></tr>\n";
    for (const auto& [field, use] : defaults->items()) {
      page << "<tr>" << th(field) << td(value_text(find(use, "/value")))
           << td(value_text(find(use, "/source"))) << td(value_text(find(use, "/rows")))
           << "</tr>\n";
    }
    page << "</table>\n";
  }
}

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:24px;color:#222;max-width:1200px}"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;"
    "margin-top:32px}h3{font-size:15px}"
    "table{border-collapse:collapse;margin:8px 0 16px}"
    "th,td{border:1px solid #ddd;padding:3px 8px;font-size:13px;text-align:left}"
    "td{font-variant-numeric:tabular-nums}"
    ".charts{display:flex;flex-wrap:wrap;gap:12px}.note{color:#555;font-size:13px}"
    "nav a{margin-right:12px}";

}  // namespace

std::string build_html_report(const std::vector<std::string>& dirs,
                              const std::vector<std::string>& shown_as) {
  if (dirs.empty()) throw InputError("gpumux report", "", "expected at least one folder");
  const std::vector<std::string>& names = shown_as.empty() ? dirs : shown_as;
  std::vector<Variant> variants;
  std::vector<CompareData> compares;
  std::vector<PlanData> plans;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    const fs::path dir(dirs[i]);
    const std::string shown = display_dir(names.at(i));
    if (!fs::is_directory(dir)) throw InputError(shown, "", "no such folder");
    const std::string prefix = dirs.size() > 1 ? shown + ": " : "";
    if (fs::exists(dir / "compare.json")) {
      CompareData data;
      auto read = read_compare(dir, names.at(i), prefix, data);
      variants.insert(variants.end(), std::make_move_iterator(read.begin()),
                      std::make_move_iterator(read.end()));
      compares.push_back(std::move(data));
    } else if (fs::exists(dir / "summary.json")) {
      RunData run = read_run(dir);
      run.dir = path_text(fs::path(names.at(i)));
      variants.push_back({shown, {std::move(run)}});
    } else if (fs::exists(dir / "plan.json")) {
      PlanData plan = read_plan(dir);
      plan.dir = shown;
      plans.push_back(std::move(plan));
    } else {
      throw InputError(shown, "",
                       "neither a run folder (summary.json, from gpumux run), a compare "
                       "folder (compare.json, from gpumux compare --out) nor a plan folder "
                       "(plan.json, from gpumux plan --out)");
    }
  }

  std::ostringstream page;
  std::string title = "gpumux report";
  if (!variants.empty()) {
    if (const json* name = find(variants.front().runs.front().summary, "/scenario/name"); name)
      title += ": " + value_text(name);
  } else if (const json* name = find(plans.front().doc, "/scenario"); name) {
    title += ": " + value_text(name);
  }
  page << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<title>" << escape_xml(title) << "</title>\n"
       << "<link rel=\"icon\" href=\"data:,\">\n<style>" << kStyle << "</style>\n</head>\n<body>\n"
       << "<h1>" << escape_xml(title) << "</h1>\n<p>Inputs:";
  for (const auto& d : names) page << " <code>" << escape_xml(display_dir(d)) << "</code>";
  page << ". " << variants.size() << (variants.size() == 1 ? " variant" : " variants")
       << ". Charts with several seeds: time series of the first seed, CDFs over every seed's "
          "jobs.</p>\n";
  page << "<nav>";
  if (!plans.empty()) page << "<a href=\"#plan\">capacity plan</a>";
  if (!compares.empty()) page << "<a href=\"#compare\">comparison</a>";
  page << "<a href=\"#over-time\">over time</a><a href=\"#cdfs\">JCT and queueing</a>"
          "<a href=\"#metrics\">key metrics</a><a href=\"#requests\">requests</a>"
          "<a href=\"#faults\">faults</a><a href=\"#mig\">MIG slots</a>"
          "<a href=\"#scenario\">scenario</a></nav>\n";

  if (!plans.empty()) {
    page << "<section id=\"plan\">\n<h2>Capacity plan</h2>\n";
    for (const auto& p : plans) plan_table(page, p);
    page << "</section>\n";
  }
  if (!compares.empty()) {
    page << "<section id=\"compare\">\n<h2>Comparison</h2>\n";
    for (const auto& c : compares) compare_table(page, c);
    page << "</section>\n";
  }
  if (variants.empty()) {
    // A plan alone: its runs are not kept, so there is nothing to chart.
    page << "<p class=\"note\">No run or compare folder given: no charts.</p>\n</body>\n"
            "</html>\n";
    return page.str();
  }

  page << "<section id=\"over-time\">\n<h2>Utilization and allocation over time</h2>\n"
          "<div class=\"charts\">\n";
  ChartSpec ratio = over_time(variants, "GPU allocation ratio", "share of GPUs with a job",
                              &RunData::allocation_ratio);
  ratio.y_min = 0.0;
  ratio.y_max = 1.0;
  chart(page, ratio);
  ChartSpec busy =
      over_time(variants, "SM-busy utilization", "share of GPU time computing", &RunData::sm_busy);
  busy.y_min = 0.0;
  busy.y_max = 1.0;
  chart(page, busy);
  chart(page, over_time(variants, "GPUs in use", "GPUs", &RunData::allocated_gpus));
  chart(page, over_time(variants, "Queued jobs", "jobs", &RunData::queued));
  page << "</div>\n</section>\n";

  page << "<section id=\"cdfs\">\n<h2>Job completion time and queueing delay</h2>\n"
          "<div class=\"charts\">\n";
  chart(page, cdf(variants, "JCT CDF", "job completion time (s)", &RunData::jct_s));
  chart(page, cdf(variants, "Queueing-delay CDF", "queueing delay (s)", &RunData::queue_s));
  page << "</div>\n<p class=\"note\">Finished jobs only; rejected, failed and unfinished jobs "
          "are counted under Key metrics and Faults.</p>\n</section>\n";

  page << "<section id=\"metrics\">\n<h2>Key metrics</h2>\n";
  metric_table(page, variants, kKeyMetrics);
  if (std::any_of(variants.begin(), variants.end(),
                  [](const Variant& v) { return v.runs.size() > 1; })) {
    page << "<p class=\"note\">Variants with several seeds: the run of the first seed (the "
            "comparison above has every seed).</p>\n";
  }
  page << "</section>\n";

  page << "<section id=\"requests\">\n<h2>Request latency</h2>\n";
  const bool any_requests = std::any_of(variants.begin(), variants.end(), [](const Variant& v) {
    return v.runs.front().summary["metrics"].contains("requests");
  });
  if (any_requests) {
    page << "<div class=\"charts\">\n";
    chart(page, request_cdf(variants));
    page << "</div>\n";
    metric_table(page, variants, kRequestMetrics);
  } else {
    page << "<p class=\"note\">No inference services in these runs.</p>\n";
  }
  page << "</section>\n";

  page << "<section id=\"faults\">\n<h2>Out-of-memory and fault events over time</h2>\n"
          "<div class=\"charts\">\n";
  chart(page, faults_over_time(variants, "Out-of-memory events", &RunData::memory_faults));
  chart(page, faults_over_time(variants, "Fatal GPU faults", &RunData::fatal_faults));
  chart(page, faults_over_time(variants, "Jobs killed", &RunData::jobs_killed));
  chart(page, faults_over_time(variants, "Jobs failed", &RunData::failed));
  page << "</div>\n";
  metric_table(page, variants, kFailureMetrics);
  page << "</section>\n";

  page << "<section id=\"mig\">\n<h2>MIG slice occupancy</h2>\n";
  const bool any_slots = std::any_of(variants.begin(), variants.end(), [](const Variant& v) {
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
      const RunData& run = v.runs.front();
      if (!run.has_slot_timeseries) continue;
      busy_slices.series.push_back({v.label, downsample(run.slice_busy_share, kMaxChartPoints)});
      fragmented.series.push_back(
          {v.label, downsample(run.slice_fragmented_share, kMaxChartPoints)});
    }
    chart(page, busy_slices);
    chart(page, fragmented);
    page << "</div>\n";
    metric_table(page, variants, kSlotMetrics);
    page << "<table><tr><th>variant</th><th>profile</th><th>mean instances</th>"
            "<th>mean busy</th><th>occupancy</th></tr>\n";
    for (const auto& v : variants) {
      const json* profiles = find(v.runs.front().summary["metrics"], "/slots/profiles");
      if (profiles == nullptr || !profiles->is_object()) continue;
      for (const auto& [name, p] : profiles->items()) {
        page << "<tr>" << td(v.label) << th(name) << td(value_text(find(p, "/mean_instances")))
             << td(value_text(find(p, "/mean_busy"))) << td(value_text(find(p, "/occupancy")))
             << "</tr>\n";
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
  page << "</section>\n</body>\n</html>\n";
  return page.str();
}

void write_html_report(const std::vector<std::string>& dirs, const std::string& output,
                       const std::vector<std::string>& shown) {
  const std::string page = build_html_report(dirs, shown);
  AtomicFile file(output);
  file.stream() << page;
  file.commit();
}

}  // namespace gpumux
