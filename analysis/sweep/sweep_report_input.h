// A sweep folder (sweep_store.h) as `gpumux report` reads it (report_inputs.h): its runs grouped
// into variants by their values of every axis but the seed, the seeds as repetitions.
//
// A variant's label is its model, then each axis as key=value, e.g. "fractional,
// placement=fgd" or "mps, queue=fifo-backfill, nodes=4": the key is the last segment of the
// axis path as the sweep file wrote it ("scheduler.placement" -> "placement",
// "/cluster/node_groups/0/nodes" -> "nodes"), the whole path when two axes share that segment;
// values as sweep.csv writes them (strings unquoted). A sweep of several scenarios starts each
// label with the scenario's name and a colon ("quickstart: mps"). With several report inputs
// the label is preceded by "<folder>: " as a compare folder's are.
//
// The table is merge's (sweep_merge.h: the metrics of `gpumux compare`, mean and 95% interval
// over the seeds that ended), each cell printed by compare_cell_text as the terminal prints it.
// Runs not finished (no result yet, or error.json) are named in a note, never dropped silently.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/report/report_inputs.h"
#include "analysis/sweep/sweep_plan.h"

namespace gpumux {

// Whether `dir` holds a sweep's plan (sweep-plan.json).
bool is_sweep_folder(const std::filesystem::path& dir);

// The label of a run's variant by the rule above; `runs` are the plan's runs (for the
// scenarios' count and the axes' keys).
// `except_axis`: an axis path left out of the label (the line of a chart against that axis).
std::string sweep_variant_label(const SweepRun& run, const std::vector<SweepRun>& runs,
                                const std::string& except_axis = "");

// The key an axis is labelled by (the rule above), among the axes of `run`.
std::string sweep_axis_key(const std::string& path, const SweepRun& run);

// Adds the sweep's variants (the runs that ended, read as run folders), its table, a note
// naming the runs not finished, and per numeric axis (a number in every run, two values or
// more) one line chart per metric of the table against that axis (ReportInputs::axis_charts:
// one line per variant of the other axes and the model, each point the mean over the seeds
// with its 95% interval as a band) to `inputs`. Throws InputError as merge_sweep does (a summary
// or error.json that cannot be read), naming the file.
void read_sweep_folder(const std::filesystem::path& dir, const std::string& shown,
                       const std::string& prefix, ReportInputs& inputs);

}  // namespace gpumux
