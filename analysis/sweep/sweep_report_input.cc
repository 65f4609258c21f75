#include "analysis/sweep/sweep_report_input.h"

#include <map>
#include <set>

#include "analysis/compare/compare_report.h"
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

std::string sweep_variant_label(const SweepRun& run, const std::vector<SweepRun>& runs) {
  std::set<std::string> scenarios;
  for (const auto& r : runs) scenarios.insert(r.scenario_name);
  std::string label = scenarios.size() > 1 ? run.scenario_name + ": " + run.model : run.model;
  std::map<std::string, int> uses;  // how many axes end in each segment
  for (const auto& a : run.axes) ++uses[last_segment(a.path)];
  for (const auto& a : run.axes) {
    const std::string key = uses[last_segment(a.path)] > 1 ? a.path : last_segment(a.path);
    label += ", " + key + "=" + axis_value_text(a.value);
  }
  return label;
}

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
  for (const auto& v : merge.variants) {
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
