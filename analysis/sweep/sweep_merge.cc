#include "analysis/sweep/sweep_merge.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sim/base/atomic_file.h"
#include "analysis/compare/compare_report.h"
#include "analysis/stats/mean_interval.h"
#include "analysis/output/number_text.h"
#include "analysis/metrics/summary_metrics.h"
#include "analysis/compare/compare_metrics.h"
#include "analysis/run/provenance.h"
#include "analysis/sweep/sweep_store.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/base/terminal_text.h"

namespace gpumux {

namespace {

namespace fs = std::filesystem;

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// As `gpumux compare` does: the mean and interval only when every ended seed has a value.
void fill_cells(SweepVariantResult& v, const std::vector<std::vector<std::optional<double>>>& per_run) {
  for (std::size_t m = 0; m < v.metrics.size(); ++m) {
    CompareCell c;
    std::vector<double> present;
    for (const auto& run : per_run) {
      c.values.push_back(run[m]);
      if (run[m]) present.push_back(*run[m]);
    }
    c.n = present.size();
    if (c.n == c.values.size() && c.n > 0) {
      const MeanInterval mi = mean_interval(present);
      c.mean = mi.mean;
      c.half_width = mi.half_width;
    }
    v.cells.push_back(std::move(c));
  }
}

std::string list_text(const std::vector<std::size_t>& indices, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < std::min(shown, indices.size()); ++i) {
    out += (i ? ", " : "") + std::to_string(indices[i]);
  }
  if (indices.size() > shown) out += ", ...";
  return out;
}

// A run's summary.json as merge reads it: an object whose `metrics` is an object, and each merged
// metric's value (when there) a number or null, every step to it an object. A summary that is
// none of these (hand-edited, another program's) is bad input naming the file and the pointer,
// not a run that "ended" with every metric n/a.
void check_summary(const nlohmann::json& summary, const std::string& file,
                   const std::vector<CompareMetric>& metrics) {
  if (!summary.is_object()) {
    throw InputError(file + "#", "", "expected a run summary (an object), got " +
                                         describe_json(summary));
  }
  if (!summary.contains("metrics")) {
    throw InputError(file + "#/metrics", "", "missing: a run summary holds the run's metrics");
  }
  if (!summary["metrics"].is_object()) {
    throw InputError(file + "#/metrics", "",
                     "expected the run's metrics (an object), got " +
                         describe_json(summary["metrics"]));
  }
  std::vector<std::string> names;
  for (const auto& metric : metrics) {
    // Per-endpoint rows ("METRIC for ID") sit in the services' rows, which compare_value reads.
    if (metric.name.find(" for ") == std::string::npos) names.push_back(metric.name);
  }
  check_summary_metric_types(summary, file, names);
}

// A failed run's error.json as merge reads it: valid JSON (a file cut short is an error naming
// its line) holding the run's error as a non-empty string at /error, not a failure without text.
std::string recorded_error(const std::string& dir, std::size_t index) {
  const std::string file = (fs::path(sweep_run_folder(dir, index)) / "error.json").string();
  const nlohmann::json j = read_json_file(file);
  if (!j.is_object() || !j.contains("error") || !j["error"].is_string() ||
      j["error"].get<std::string>().empty()) {
    const bool has_error = j.is_object() && j.contains("error");
    throw InputError(file + "#/error", "",
                     "expected the run's error message (a non-empty string), got " +
                         (has_error ? describe_json(j["error"])
                                    : j.is_object() ? std::string("nothing") : describe_json(j)));
  }
  return j["error"].get<std::string>();
}

}  // namespace

SweepMerge merge_sweep(const std::string& dir, bool partial) {
  const SweepPlan plan = read_sweep_plan(dir);
  SweepMerge merge;
  merge.name = plan.name;
  merge.description = plan.description;
  merge.total = plan.runs.size();
  merge.inputs = plan.inputs;
  merge.inputs_recorded = plan.inputs_recorded;
  for (const auto& run : plan.runs) {
    if (sweep_run_state(dir, run.index) == SweepRunState::kMissing) {
      merge.missing.push_back(run.index);
    }
  }
  if (!merge.missing.empty() && !partial) {
    throw InputError(dir, "",
                     std::to_string(merge.missing.size()) + " of " +
                         std::to_string(merge.total) + " runs have no result yet (runs " +
                         list_text(merge.missing, 8) +
                         "): run the sweep again to finish them (it skips finished runs), or "
                         "merge with --partial");
  }

  std::vector<std::vector<std::optional<double>>> per_run;  // of the current variant
  for (const auto& run : plan.runs) {
    if (merge.variants.empty() || merge.variants.back().variant != run.variant) {
      if (!merge.variants.empty()) fill_cells(merge.variants.back(), per_run);
      per_run.clear();
      SweepVariantResult v;
      v.variant = run.variant;
      v.scenario = run.scenario_name;
      v.model = run.model;
      v.axes = run.axes;
      v.metrics = compare_metrics(run.services, run.shares, run.llm);
      merge.variants.push_back(std::move(v));
    }
    SweepVariantResult& v = merge.variants.back();
    const SweepRunState state = sweep_run_state(dir, run.index);
    if (state == SweepRunState::kFailed) {
      merge.failures.push_back(
          {run.index, run.variant, run.seed, recorded_error(dir, run.index)});
      continue;
    }
    if (state != SweepRunState::kDone) continue;
    const std::string summary_file =
        (fs::path(sweep_run_folder(dir, run.index)) / "summary.json").string();
    const nlohmann::json summary = read_json_file(summary_file);
    // A variant whose runs split their jobs by kind gets those rows, and one with several
    // services (up to compare's limit) their per-endpoint rows, as its first run has them.
    if (v.runs.empty()) {
      for (CompareMetric& row : kind_rows(summary)) v.metrics.push_back(std::move(row));
      for (CompareMetric& row : endpoint_rows(summary)) v.metrics.push_back(std::move(row));
    }
    check_summary(summary, summary_file, v.metrics);
    if (plan.inputs_recorded) {
      check_run_inputs(plan.inputs, run.scenario_name,
                       "run " + std::to_string(run.index) + " (" + run.variant + ", seed " +
                           std::to_string(run.seed) + ")",
                       summary, summary_file);
    }
    std::vector<std::optional<double>> values;
    for (const auto& metric : v.metrics) values.push_back(compare_value(summary, metric.name));
    per_run.push_back(std::move(values));
    v.runs.push_back(run.index);
    v.seeds.push_back(run.seed);
    ++merge.succeeded;
  }
  if (!merge.variants.empty()) fill_cells(merge.variants.back(), per_run);
  return merge;
}

void write_sweep_csv(const SweepMerge& merge, std::ostream& out) {
  out << "variant,seed,metric,value\n";
  for (const auto& v : merge.variants) {
    const std::string variant = csv_field(v.variant);
    for (std::size_t s = 0; s < v.seeds.size(); ++s) {
      for (std::size_t m = 0; m < v.metrics.size(); ++m) {
        const auto& value = v.cells[m].values[s];
        out << variant << "," << v.seeds[s] << "," << csv_field(v.metrics[m].name) << ","
            << (value ? csv_number(*value) : "") << "\n";
      }
    }
  }
}

nlohmann::json sweep_merge_to_json(const SweepMerge& merge) {
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& v : merge.variants) {
    nlohmann::json axes = nlohmann::json::array();
    for (const auto& a : v.axes) axes.push_back({{"set", a.path}, {"value", a.value}});
    nlohmann::json cells = nlohmann::json::object();
    for (std::size_t m = 0; m < v.metrics.size(); ++m) {
      const CompareCell& c = v.cells[m];
      nlohmann::json values = nlohmann::json::array();
      for (const auto& x : c.values) values.push_back(optional_json(x));
      cells[v.metrics[m].name] = {{"mean", optional_json(c.mean)},
                                  {"ci95_half_width", optional_json(c.half_width)},
                                  {"n", c.n},
                                  {"values", values}};
    }
    variants.push_back({{"variant", v.variant},
                        {"scenario", v.scenario},
                        {"model", v.model},
                        {"axes", axes},
                        {"seeds", v.seeds},
                        {"runs", v.runs},
                        {"metrics", cells}});
  }
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& f : merge.failures) {
    failures.push_back(
        {{"index", f.index}, {"variant", f.variant}, {"seed", f.seed}, {"error", f.error}});
  }
  return {{"sweep", {{"name", merge.name}, {"description", merge.description}}},
          {"runs",
           {{"total", merge.total},
            {"succeeded", merge.succeeded},
            {"failed", merge.failures.size()},
            {"missing", merge.missing.size()}}},
          {"confidence",
           {{"level", 0.95},
            {"method", "Student t over each variant's seeds that ended"}}},
          {"variants", variants},
          {"failures", failures},
          {"missing", merge.missing},
          {"provenance",
           {{"build", build_json()},
            {"inputs", merge.inputs_recorded ? sweep_inputs_to_json(merge.inputs)
                                             : nlohmann::json(nullptr)}}}};
}

void write_sweep_merge(const SweepMerge& merge, const std::string& dir) {
  AtomicFile csv((fs::path(dir) / "sweep.csv").string());
  AtomicFile json((fs::path(dir) / "sweep.json").string());
  write_sweep_csv(merge, csv.stream());
  json.stream() << sweep_merge_to_json(merge).dump(2) << "\n";
  csv.commit();
  json.commit();
}

void print_sweep_table(const SweepMerge& merge, std::ostream& out, std::size_t max_rows) {
  out << "sweep '" << terminal_text(merge.name) << "': " << merge.total << " runs, "
      << merge.succeeded
      << " ended, " << merge.failures.size() << " failed";
  if (!merge.missing.empty()) out << ", " << merge.missing.size() << " missing";
  out << "; " << merge.variants.size()
      << (merge.variants.size() == 1 ? " variant\n\n" : " variants\n\n");

  const std::vector<std::string> shown = {"gpu_allocation_ratio", "jct_s.mean", "jct_s.p95",
                                          "queueing_delay_s.p95"};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"variant", "runs"};
  const std::vector<CompareMetric> all = compare_metrics(false);
  for (const auto& name : shown) {
    for (const auto& m : all) {
      if (m.name == name) header.push_back(m.label);
    }
  }
  rows.push_back(header);
  for (std::size_t i = 0; i < std::min(max_rows, merge.variants.size()); ++i) {
    const auto& v = merge.variants[i];
    std::vector<std::string> row = {v.variant, std::to_string(v.runs.size())};
    for (const auto& name : shown) {
      for (std::size_t m = 0; m < v.metrics.size(); ++m) {
        if (v.metrics[m].name == name) {
          row.push_back(compare_cell_text(v.metrics[m], v.cells[m], v.seeds.size()));
        }
      }
    }
    rows.push_back(row);
  }
  // Widths in display columns (the ± sign is two bytes, one column).
  auto columns = [](const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  };
  std::vector<std::size_t> widths(header.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], columns(row[c]));
  }
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(widths[c] - columns(row[c]), ' ');
      out << (c == 0 ? row[c] + pad : "  " + pad + row[c]);
    }
    out << "\n";
  }
  if (merge.variants.size() > max_rows) {
    out << "... " << merge.variants.size() - max_rows << " more variants in sweep.json\n";
  }
  out << "\nruns: the variant's seeds that ended; mean ± half-width of the 95% interval over "
         "them (every metric: sweep.csv, sweep.json).\n";
  for (std::size_t i = 0; i < std::min<std::size_t>(merge.failures.size(), 10); ++i) {
    const auto& f = merge.failures[i];
    out << "FAILED run " << f.index << " (" << f.variant << ", seed " << f.seed << "): " << f.error
        << "\n";
  }
  if (merge.failures.size() > 10) {
    out << "... " << merge.failures.size() - 10 << " more failed runs in sweep.json\n";
  }
}

}  // namespace gpumux
