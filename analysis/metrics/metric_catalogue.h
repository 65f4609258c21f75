// Every metric gpumux reports, declared once: its dotted name (the path of a number under
// `metrics` in summary.json: "jct_s.p95" is /metrics/jct_s/p95), unit, which way is better, and
// what it means. `expect` bounds, `plan --objective`, `compare`, `sweep`/`merge` and `gpumux
// metrics` read their names from here; a metric not in this table is unknown everywhere.
//
// A `*` in a name stands for one name the scenario chooses (a MIG profile). Some metrics exist
// only in some runs (`slots.*` under models that split GPUs into slots, `requests.*` with
// inference services, `shares.*` under share-limiting models or share-aware placement); a
// summary value that is null is an empty set (a percentile of no finished jobs). Derived metrics
// are not in summary.json: they are computed from it (a share of arrived jobs) for objectives.
//
// Each entry also says how people read it: its label and decimals in the tables (`gpumux
// compare`, `merge`, `sweep`, the HTML report), why a null value is n/a, and the line or row
// `gpumux run`'s printed summary gives it (analysis/run/summary_table.h walks the catalogue).
//
// Old objective names (`queue_p95_s`, `jct_p95_s`, `request_p99_ms`, `slo_attainment`) are
// aliases of catalogue names (metric_aliases()), kept so that existing commands still work.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/registry.h"

namespace gpumux {

enum class Better : unsigned char {
  kLower,   // a latency, a count of failures: objectives bound it from above (<=)
  kHigher,  // an attainment, a utilization: objectives bound it from below (>=)
  kNeither  // a count of jobs, a size: reported, never an objective
};

// The text of a printed summary line from summary.json's "metrics", or "" to leave the line out
// (a count of zero, a family the run does not have).
using SummaryLineText = std::string (*)(const nlohmann::json& metrics);

struct MetricInfo {
  std::string name;  // dotted, e.g. "queueing_delay_s.p95"
  std::string unit;  // "s", "ms", "share" (0..1), "GPUs", "GPU-hours", "jobs", ...
  Better better = Better::kNeither;
  std::string summary;      // one line
  bool derived = false;     // computed from summary.json, not a path in it

  // In the tables: the row's label ("JCT p95 (s)") and a single run's decimals; -1: no fixed
  // format (the report then prints up to 4 significant digits).
  std::string label{};
  int digits = -1;
  bool count = false;  // a count of jobs or events: a mean over seeds gets one decimal
  // Why a null value is n/a, in words: the empty set it summarises.
  std::string null_meaning = "no job arrived, or no GPU time to share";

  // In `gpumux run`'s printed summary. A line: its place among the lines (0: none), its left
  // column ("" when the text is the whole line) and its text.
  int summary_place = 0;
  std::string summary_label{};
  SummaryLineText summary_text = nullptr;
  // A row of the distributions table (one row per distribution, a column per statistic): the
  // row's label ("JCT (s)", on every statistic of the distribution; "" for none) and decimals.
  std::string summary_row{};
  int summary_row_digits = 0;

  // Whether `name` is this entry's: its name, where a `*` segment matches any one segment
  // (dots allowed).
  bool matches(std::string_view candidate) const;

  // Copies with the fields above set, for the catalogue's entries.
  MetricInfo in_tables(std::string table_label, int table_digits, bool is_count = false) const;
  MetricInfo null_means(std::string meaning) const;
  MetricInfo in_summary(int place, std::string line_label, SummaryLineText text) const;
};

// The values a metric can take: [0, 1] for a share, [0, inf) for every other metric of the
// catalogue (times, counts, rates, ratios), (-inf, inf) for a name it does not know. A "METRIC
// for SELECTOR" name (a per-endpoint row) takes its metric's.
struct MetricDomain {
  double low, high;
};
MetricDomain metric_domain(const std::string& name);

// The catalogue, in summary order; derived metrics last. find(name): the entry `name` denotes
// (MetricInfo::matches), or nullptr.
const Registry<MetricInfo>& metric_catalogue();

struct MetricAlias {
  std::string alias;  // e.g. "queue_p95_s"
  std::string name;   // e.g. "queueing_delay_s.p95"
};
// The documented short names of `plan --objective`, each with the catalogue name it stands for.
const std::vector<MetricAlias>& metric_aliases();

// `name` itself when it is no alias, else the catalogue name the alias stands for.
std::string canonical_metric_name(const std::string& name);

// One line per metric (name, unit, direction, description), then the aliases: `gpumux metrics`.
std::string metric_catalogue_text();

// "lower", "higher" or "neither": which way a metric is better, in words.
const char* better_name(Better better);

}  // namespace gpumux
