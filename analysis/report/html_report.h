// `gpumux report`: one self-contained HTML page (inline CSS and SVG; no script, no font, no
// network reference) drawn from run, compare, sweep and plan folders.
//
// Inputs. A run folder holds summary.json, and optionally jobs.csv, timeseries.csv and
// slot_timeseries.csv (a scenario's outputs block may turn those off: their charts then say so).
// A compare folder holds compare.json and the run folders DIR/<model>/seed-<seed>/ it names. A
// sweep folder holds sweep-plan.json and DIR/runs/NNNNNN/ (sweep_report_input.h: its variants
// by axis values, seeds as repetitions). A plan folder holds plan.json (gpumux plan --out); its
// runs are not kept, so it gives a table and no chart (a page of plan folders alone has only the
// plan section). Every run folder of a compare folder is one variant (its model); a run folder
// given directly is one variant labelled by its path as given. With several inputs, compare and
// sweep variants are labelled "<folder>: <label>".
//
// Content (docs/comparing-and-reports.md "Reports"): the plan tables (plan folders), the tables
// over seeds (compare and sweep folders, each cell as the terminal prints it) and a bar chart per
// metric with 95% intervals when they have two variants or more, allocation ratio, SM-busy
// utilization, GPUs in use and queued jobs over time, JCT and queueing-delay CDFs (log time
// axes), key metrics per variant, the request-latency summary (runs with inference services),
// failed jobs, out-of-memory events, fatal faults and kills over time, MIG slot occupancy over
// time and overall (models with slots), and each scenario with its sharing parameters and trace
// defaults and their sources. Tables of metrics give each variant's mean over its seeds. A chart
// with nothing to draw is left off the page and listed once at its end, with why. The title
// names the first run's scenario, or the sweep when the first input is a sweep folder. With several
// seeds, the time series are the mean over the seeds with a band from the lowest to the highest
// (seed_series.h) and the CDFs pool every seed's jobs.
//
// Size: each line is downsampled to at most kMaxChartPoints points (svg_chart.h), so a run of a
// million jobs still gives a page of a few hundred kB. Determinism: the same folders (given
// the same way) give a byte-identical page and data files (report_data.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/report/report_data.h"
#include "analysis/report/report_inputs.h"

namespace gpumux {

// The page and every figure on it, in page order (the data files of --data draw from these).
struct ReportPage {
  std::string html;
  std::vector<ReportFigure> figures;
};

// The page of `inputs` (read by read_report_folder, read_compare_folder, read_sweep_folder).
ReportPage build_report_page(const ReportInputs& inputs);
std::string build_html_report(const ReportInputs& inputs);

// Run and plan folders read into inputs (`shown`, if not empty, names each folder on the page
// instead of its path in `dirs`, same size: a run draws its report from its temporary folder
// before moving it into place). Throws InputError naming the folder, the file and line or JSON
// pointer for a missing folder, a folder of another kind, malformed JSON or CSV, or a missing
// column; `dirs` is not empty.
ReportInputs read_run_and_plan_folders(const std::vector<std::string>& dirs,
                                       const std::vector<std::string>& shown = {});

// Builds the page and writes it to `output`, and with a `data_dir` each figure's data file
// (report_data.h) into it, each file atomically and all after the page is built: on an error
// nothing is written (and a data folder made for them is removed again).
void write_html_report(const ReportInputs& inputs, const std::string& output,
                       const std::string& data_dir = "");

}  // namespace gpumux
