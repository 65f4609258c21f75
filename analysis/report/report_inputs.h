// The folders `gpumux report` draws from, read into memory (html_report.h describes the page).
// A run folder (summary.json; jobs.csv, timeseries.csv and slot_timeseries.csv when present), a
// compare folder (compare.json and the run folders DIR/<model>/seed-<seed>/ it names) or a plan
// folder (plan.json). A compare folder's table and a sweep folder are read by the layers that
// own their formats (analysis/compare/compare_report_input.h, analysis/sweep/
// sweep_report_input.h) into the same ReportInputs. Readers check only what the page relies on
// (summary.json's scenario and metrics objects, the CSV columns drawn, compare.json's arrays,
// plan.json's model names) and throw InputError naming the file and line or JSON pointer;
// everything else is looked up where drawn, with json_find, and a missing value is shown as missing
// rather than rejected. Times are simulated seconds, as the files give them.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/svg_chart.h"

namespace gpumux {

// One run folder, read.
struct RunFolder {
  std::string dir;
  nlohmann::json summary;
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

struct ReportVariant {
  std::string label;
  std::vector<RunFolder> runs;  // one per seed; the first gives the time series
};

struct CompareFolder {
  std::string dir;
  nlohmann::json doc;  // compare.json
};

// One cell of a table over seeds: the text the terminal prints for it (compare_cell_text) and
// the numbers behind it (the bar charts and the data files draw those).
struct SeedCell {
  std::string text;
  std::optional<double> mean, half_width;  // half_width absent with one seed
  std::size_t n = 0;                       // seeds with a value
};

// A table over seeds (a compare folder, a sweep folder): rows = metrics, columns = variants.
struct SeedTable {
  std::string heading;               // e.g. "out/cmp: scenario 'quickstart', 2 seeds"
  std::vector<std::string> columns;  // the variants' labels
  std::vector<std::string> metric_names, metric_labels;
  std::vector<std::vector<SeedCell>> cells;  // [metric][column]
  std::string note;                          // what a cell holds
};

struct PlanFolder {
  std::string dir;
  nlohmann::json doc;  // plan.json
};

// A pack folder (gpumux pack --out): pack.json, its policies' curves checked on reading.
struct PackFolder {
  std::string dir;
  nlohmann::json doc;  // pack.json
};

// Everything a page is drawn from, in the order the folders were given.
struct ReportInputs {
  std::vector<std::string> shown;  // the folders as the page names them
  std::vector<ReportVariant> variants;
  std::vector<SeedTable> tables;
  std::vector<PlanFolder> plans;
  std::vector<PackFolder> packs;
  std::vector<std::string> notes;  // said under the inputs (e.g. a sweep's unfinished runs)
  // Line charts of a sweep's metrics against its numeric axes (sweep_report_input.h), drawn in
  // their own section.
  std::vector<ChartSpec> axis_charts;
  // What the page's title names after "gpumux report: " (a sweep's name, when the first input
  // is a sweep); "": the first run's scenario, else the first plan's.
  std::string title;
};

// Paths as the page prints them: '/'-separated on every platform.
std::string path_text(const std::filesystem::path& p);
// A folder argument as shown on the page: as given, without trailing slashes.
std::string display_dir(std::string dir);

RunFolder read_run(const std::filesystem::path& dir);
// A plan folder (plan.json, from gpumux plan --out): its models must be an array of objects
// with a name; everything else is read where drawn, a missing value shown as "-".
PlanFolder read_plan(const std::filesystem::path& dir);
// A pack folder (pack.json, from gpumux pack --out): its policies must be a non-empty array of
// objects with a policy name and a curve of {arrived_pct, alloc_pct, frag_pct}, each percentage
// null or {mean, ci95_low, ci95_high}; else InputError naming the file and JSON pointer.
PackFolder read_pack(const std::filesystem::path& dir);
// The variants of a compare folder, in compare.json's order, one run per seed, each labelled
// `prefix` + its model; fills `data` with compare.json. `shown`: the folder as the page names it
// (a compare writes its report from a temporary folder that is renamed afterwards).
std::vector<ReportVariant> read_compare(const std::filesystem::path& dir, const std::string& shown,
                                        const std::string& prefix, CompareFolder& data);

// Adds a run folder (one variant labelled by `shown`) or a plan folder to `inputs`. Throws
// InputError naming `shown` when `dir` is missing or is neither (the message names every kind of
// folder `gpumux report` reads).
void read_report_folder(const std::filesystem::path& dir, const std::string& shown,
                        ReportInputs& inputs);

// The value at a JSON pointer, or nullptr when any step is missing.
// A value of the wrong type on the way (a hand-edited file) also counts as missing.
const nlohmann::json* json_find(const nlohmann::json& j, const std::string& pointer);

}  // namespace gpumux
