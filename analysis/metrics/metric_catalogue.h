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
// Old objective names (`queue_p95_s`, `jct_p95_s`, `request_p99_ms`, `slo_attainment`) are
// aliases of catalogue names (metric_aliases()), kept so that existing commands still work.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpumux {

enum class Better : unsigned char {
  kLower,   // a latency, a count of failures: objectives bound it from above (<=)
  kHigher,  // an attainment, a utilization: objectives bound it from below (>=)
  kNeither  // a count of jobs, a size: reported, never an objective
};

struct MetricInfo {
  std::string name;  // dotted, e.g. "queueing_delay_s.p95"
  std::string unit;  // "s", "ms", "share" (0..1), "GPUs", "GPU-hours", "jobs", ...
  Better better = Better::kNeither;
  std::string description;  // one line
  bool derived = false;     // computed from summary.json, not a path in it
};

// The catalogue, in summary order; derived metrics last.
const std::vector<MetricInfo>& metric_catalogue();

// The entry `name` denotes (a `*` entry matches any one segment, dots allowed), or nullptr.
const MetricInfo* find_metric(std::string_view name);

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

}  // namespace gpumux
