#include "analysis/sweep/sweep_report_input.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/compare/compare_report.h"
#include "analysis/metrics/metric_catalogue.h"
#include "analysis/stats/mean_interval.h"
#include "analysis/sweep/sweep_merge.h"
#include "analysis/sweep/sweep_store.h"

namespace gpumux {

namespace {

namespace fs = std::filesystem;

// The last segment of a dotted path or a JSON pointer.
std::string last_segment(const std::string& path) {
  const std::size_t cut = path.find_last_of(path.rfind('/', 0) == 0 ? '/' : '.');
  return cut == std::string::npos ? path : path.substr(cut + 1);
}

// Unfinished runs listed by name; past this many, a count (merge --partial lists them all).
constexpr std::size_t kListedRuns = 10;

}  // namespace

bool is_sweep_folder(const fs::path& dir) { return fs::is_regular_file(dir / "sweep-plan.json"); }

std::string sweep_axis_key(const std::string& path, const SweepRun& run) {
  int uses = 0;  // how many axes end in this segment
  for (const auto& a : run.axes) uses += last_segment(a.path) == last_segment(path) ? 1 : 0;
  return uses > 1 ? path : last_segment(path);
}

std::string sweep_variant_label(const SweepRun& run, const std::vector<SweepRun>& runs,
                                const std::string& except_axis) {
  std::set<std::string> scenarios;
  for (const auto& r : runs) scenarios.insert(r.scenario_name);
  std::string label = scenarios.size() > 1 ? run.scenario_name + ": " + run.model : run.model;
  for (const auto& a : run.axes) {
    if (a.path == except_axis) continue;
    label += ", " + sweep_axis_key(a.path, run) + "=" + axis_value_text(a.value);
  }
  return label;
}

namespace {

// The paths of the axes that are a number in every run and take two values or more.
std::vector<std::string> numeric_axes(const std::vector<SweepRun>& runs) {
  std::vector<std::string> out;
  if (runs.empty()) return out;
  for (const auto& axis : runs.front().axes) {
    std::set<double> values;
    bool numeric = true;
    for (const auto& r : runs) {
      const auto it = std::find_if(r.axes.begin(), r.axes.end(),
                                   [&](const SweepAxisValue& a) { return a.path == axis.path; });
      if (it == r.axes.end() || !it->value.is_number()) {
        numeric = false;
        break;
      }
      values.insert(it->value.get<double>());
    }
    if (numeric && values.size() > 1) out.push_back(axis.path);
  }
  return out;
}

// One chart per metric of `table` against the axis `path`: a line per label without the axis.
void axis_charts(const SeedTable& table, const std::vector<const SweepRun*>& column_runs,
                 const std::vector<SweepRun>& runs, const std::string& path,
                 const std::string& prefix, std::vector<ChartSpec>& out) {
  const std::string key = sweep_axis_key(path, runs.front());
  for (std::size_t row = 0; row < table.metric_names.size(); ++row) {
    ChartSpec spec;
    spec.title = prefix + table.metric_labels[row] + " against " + key;
    spec.x_label = key;
    spec.y_label = table.metric_labels[row] + ", mean over the seeds";
    spec.no_data_reason = "no data: no variant has a value";
    std::map<std::string, std::size_t> line_of;  // label without the axis -> series
    for (std::size_t c = 0; c < column_runs.size(); ++c) {
      const SweepRun& run = *column_runs[c];
      const auto axis = std::find_if(run.axes.begin(), run.axes.end(),
                                     [&](const SweepAxisValue& a) { return a.path == path; });
      const std::string line = prefix + sweep_variant_label(run, runs, path);
      auto [it, added] = line_of.emplace(line, spec.series.size());
      if (added) spec.series.push_back(ChartSeries{line, {}, {}, {}});
      const SeedCell& cell = table.cells[row][c];
      if (!cell.mean || axis == run.axes.end()) continue;
      const double x = axis->value.get<double>();
      ChartSeries& s = spec.series[it->second];
      s.points.push_back({x, *cell.mean});
      if (cell.half_width) {
        // Cut to the metric's domain, as the bar charts' intervals are: a JCT's not below 0.
        const MetricDomain domain = metric_domain(table.metric_names[row]);
        const ClippedInterval ci =
            clip_interval(*cell.mean, *cell.half_width, domain.low, domain.high);
        s.band.push_back({x, ci.low, ci.high});
      }
    }
    for (auto& s : spec.series) {
      std::sort(s.points.begin(), s.points.end(),
                [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
      std::sort(s.band.begin(), s.band.end(),
                [](const ChartBandPoint& a, const ChartBandPoint& b) { return a.x < b.x; });
    }
    out.push_back(std::move(spec));
  }
}

}  // namespace

void read_sweep_folder(const fs::path& dir, const std::string& shown_as, const std::string& prefix,
                       ReportInputs& inputs) {
  const std::string shown = display_dir(shown_as);
  const SweepPlan plan = read_sweep_plan(dir.string());
  const SweepMerge merge = merge_sweep(dir.string(), /*partial=*/true);
  std::map<std::string, std::string> labels;  // plan variant -> label
  for (const auto& run : plan.runs)
    labels.emplace(run.variant, sweep_variant_label(run, plan.runs));
  const auto run_name = [&](std::size_t index) {
    const SweepRun& run = plan.runs.at(index);
    return "run " + std::to_string(index) + " (" + labels.at(run.variant) + ", seed " +
           std::to_string(run.seed) + ")";
  };

  // A page whose first input is a sweep is titled by the sweep, not by its first scenario.
  if (inputs.title.empty() && inputs.variants.empty() && inputs.plans.empty() &&
      inputs.tables.empty()) {
    inputs.title = "sweep '" + merge.name + "'";
  }
  SeedTable table;
  table.heading = shown + ": sweep '" + merge.name + "', " + std::to_string(merge.total) +
                  " runs, " + std::to_string(merge.succeeded) + " ended";
  if (!merge.failures.empty())
    table.heading += ", " + std::to_string(merge.failures.size()) + " failed";
  if (!merge.missing.empty())
    table.heading += ", " + std::to_string(merge.missing.size()) + " missing";
  // Rows: every metric of any variant, in the order first met (a scenario with services has
  // more); a variant without a row's metric shows "-".
  for (const auto& v : merge.variants) {
    for (const auto& m : v.metrics) {
      bool known = false;
      for (const auto& name : table.metric_names) known = known || name == m.name;
      if (known) continue;
      table.metric_names.push_back(m.name);
      table.metric_labels.push_back(m.label);
    }
  }
  table.cells.assign(table.metric_names.size(), {});
  std::vector<const SweepRun*> column_runs;  // per column, a run of its variant
  for (const auto& v : merge.variants) {
    const auto first = std::find_if(plan.runs.begin(), plan.runs.end(),
                                    [&](const SweepRun& r) { return r.variant == v.variant; });
    column_runs.push_back(first == plan.runs.end() ? nullptr : &*first);
    const std::string label = prefix + labels.at(v.variant);
    table.columns.push_back(label);
    for (std::size_t row = 0; row < table.metric_names.size(); ++row) {
      SeedCell cell{"-", std::nullopt, std::nullopt, 0};
      for (std::size_t m = 0; m < v.metrics.size(); ++m) {
        if (v.metrics[m].name != table.metric_names[row]) continue;
        const CompareCell& c = v.cells[m];
        cell = {compare_cell_text(v.metrics[m], c, v.seeds.size()), c.mean, c.half_width, c.n};
      }
      table.cells[row].push_back(std::move(cell));
    }
    if (v.runs.empty()) continue;  // nothing ended: a column of n/a, no line to draw
    ReportVariant variant;
    variant.label = label;
    for (const std::size_t index : v.runs) {
      RunFolder run = read_run(sweep_run_folder(dir.string(), index));
      run.dir = path_text(fs::path(sweep_run_folder(shown_as, index)));
      variant.runs.push_back(std::move(run));
    }
    inputs.variants.push_back(std::move(variant));
  }
  table.note =
      "mean \u00b1 half-width of the 95% confidence interval of the mean over each variant's "
      "seeds that ended (Student t), the digits of gpumux compare; one seed: the run's value. "
      "n/a: an empty set in some seed; n/a (k/N): only k of the N seeds had a value.";
  if (std::none_of(column_runs.begin(), column_runs.end(),
                   [](const SweepRun* r) { return r == nullptr; })) {
    for (const std::string& path : numeric_axes(plan.runs)) {
      axis_charts(table, column_runs, plan.runs, path, prefix, inputs.axis_charts);
    }
  }
  inputs.tables.push_back(std::move(table));

  if (merge.failures.empty() && merge.missing.empty()) return;
  std::string note = shown + ": " + std::to_string(merge.failures.size() + merge.missing.size()) +
                     " of " + std::to_string(merge.total) +
                     " runs not finished, left out of the table and the charts.";
  if (!merge.missing.empty()) {
    note += " No result yet (not run, or stopped; gpumux sweep runs them):";
    for (std::size_t i = 0; i < std::min(kListedRuns, merge.missing.size()); ++i) {
      note += (i ? "; " : " ") + run_name(merge.missing[i]);
    }
    if (merge.missing.size() > kListedRuns) {
      note += "; and " + std::to_string(merge.missing.size() - kListedRuns) + " more";
    }
    note += ".";
  }
  if (!merge.failures.empty()) {
    note += " Failed (error.json):";
    for (std::size_t i = 0; i < std::min(kListedRuns, merge.failures.size()); ++i) {
      const SweepFailure& f = merge.failures[i];
      note += (i ? "; " : " ") + run_name(f.index) + ": " + f.error;
    }
    if (merge.failures.size() > kListedRuns) {
      note += "; and " + std::to_string(merge.failures.size() - kListedRuns) + " more";
    }
    note += ".";
  }
  inputs.notes.push_back(std::move(note));
}

}  // namespace gpumux
