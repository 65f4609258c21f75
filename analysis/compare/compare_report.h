// What `gpumux compare` prints and writes (docs/comparing-and-reports.md "Comparing sharing models"): the aligned
// table (rows = metrics, columns = variants), compare.json (the same numbers) and compare.csv
// (tidy long format: variant,seed,metric,value).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>

#include "analysis/compare/compare.h"
#include "analysis/output/number_text.h"  // csv_number

namespace gpumux {

// A cell as the table prints it: the single run's value with one seed; with more, "mean ± half"
// (half-width of the 95% interval); "n/a" when no seed has a value, "n/a (k/N)" when only k of
// the N seeds have one. With `same_in_every_seed` (the seeds changed nothing,
// seeds_changed_nothing in compare_fairness.h), the value as one run prints it followed by
// kSameInEverySeedMark, or "n/a".
std::string compare_cell_text(const CompareMetric& metric, const CompareCell& cell,
                              std::size_t seeds, bool same_in_every_seed = false);

// The table with a header naming the scenario, seeds and each variant's params, and a footer
// saying what a cell holds (with no interval when the seeds changed nothing); then, with two seeds
// or more and two variants or more, the paired differences from the baseline (print_paired_table),
// and last the warnings (compare_fairness.h), each on a line "warning: ...".
void print_compare_table(const CompareResult& result, std::ostream& out);

// Each variant but the baseline minus the baseline, paired by seed: rows = metrics, cells
// "+mean ± half" (n/a, and the form without an interval, as in the main table). Prints nothing
// with one seed or one variant.
void print_paired_table(const CompareResult& result, std::ostream& out);

// {scenario, seeds, confidence, metrics: [{name, label}], variants: [{model, params,
// params_source, run_dirs, metrics: {NAME: {mean, ci95_half_width, n, values}}}],
// paired_differences: {baseline, variants: [{model, metrics: {NAME: {mean, ci95_half_width,
// n}}}]} (null with one variant), warnings: [text]}; null for n/a, ci95_half_width null with
// one seed.
nlohmann::json compare_to_json(const CompareResult& result);

// The header line and one row per variant, seed and metric, in that nesting (variants in the
// order asked, seeds ascending, metrics in table order); a null value is an empty field.
void write_compare_csv(const CompareResult& result, std::ostream& out);

// Writes DIR/compare.csv and DIR/compare.json, each atomically.
void write_compare_files(const CompareResult& result, const std::string& dir);

}  // namespace gpumux
