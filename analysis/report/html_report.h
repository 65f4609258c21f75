// `gpumux report`: one self-contained HTML page (inline CSS and SVG; no script, no font, no
// network reference) drawn from run folders and compare folders.
//
// Inputs. A run folder holds summary.json, and optionally jobs.csv, timeseries.csv and
// slot_timeseries.csv (a scenario's outputs block may turn those off: their charts then say so).
// A compare folder holds compare.json and the run folders DIR/<model>/seed-<seed>/ it names. A
// plan folder holds plan.json (gpumux plan --out); its runs are not kept, so it gives a table
// and no chart (a page of plan folders alone has only the plan section). Every run folder of a
// compare folder is one variant (its model); a run folder given directly is one variant
// labelled by its path as given. With several inputs, compare variants are labelled
// "<folder>: <model>".
//
// Content (docs/comparing-and-reports.md "Reports"): the plan tables (plan folders), the compare
// table (compare folders), allocation ratio, SM-busy utilization, GPUs in use and queued jobs over
// time, JCT and queueing-delay CDFs, key metrics per variant, the request-latency summary (runs
// with inference services), failed jobs, out-of-memory events, fatal faults and kills over time,
// MIG slot occupancy over time and overall (models with slots), and each scenario with its sharing
// parameters and trace defaults and their sources. With several seeds, the time series show the
// first seed and the CDFs pool every seed's jobs.
//
// Size: each line is downsampled to at most kMaxChartPoints points (svg_chart.h), so a run of a
// million jobs still gives a page of a few hundred kB. Determinism: the same folders (given
// the same way) give a byte-identical page.
#pragma once

#include <string>
#include <vector>

namespace gpumux {

// The page. Throws InputError naming the file (and line or JSON pointer) for a missing folder,
// a folder that is neither a run nor a compare folder, malformed JSON or CSV, or a missing
// column; `dirs` is not empty.
// `shown`, if not empty, names each folder on the page instead of its path in `dirs` (same
// size): a run draws its report from its temporary folder before moving it into place.
std::string build_html_report(const std::vector<std::string>& dirs,
                              const std::vector<std::string>& shown = {});

// Builds the page and writes it to `output` atomically (nothing is written on error).
void write_html_report(const std::vector<std::string>& dirs, const std::string& output,
                       const std::vector<std::string>& shown = {});

}  // namespace gpumux
