// Objectives a cluster must meet, as `gpumux plan --objective` writes them, and their check
// against a run's summary.json.
//
// Grammar: METRIC<=NUMBER or METRIC>=NUMBER (spaces allowed around the operator). METRIC is a
// name of the metric catalogue (analysis/metrics/metric_catalogue.h: the dotted path under
// `metrics` in summary.json, e.g. queueing_delay_s.p95, jct_s.p99, requests.latency_ms.p99), or
// one of its documented aliases (queue_p95_s, jct_p95_s, request_p99_ms, slo_attainment), kept
// as the catalogue name. The bound follows the metric's direction (<= where lower is better,
// >= where higher is); a metric with neither, the other direction, an unknown metric (the
// closest names suggested), a malformed or out-of-range number (a share is at most 1), or the
// same metric twice is an InputError naming the objective. Derived metrics:
//   oom_kill_share  <= metrics.failures.jobs_killed / metrics.jobs.arrived (kills per arrived
//                      job; a job killed twice counts twice)
//   failed_share    <= metrics.jobs.failed / metrics.jobs.arrived
// The request metrics need a scenario with inference services (metrics.requests); without
// them the check throws InputError, as it does for any metric this run does not produce (slots
// without a slot model). Every plan also applies, whatever was asked:
//   rejected_jobs<=0 (metrics.jobs.rejected) and unfinished_jobs<=0 (still queued or running
//   when the run stopped), and failed_share<=0 unless a failed_share objective is given:
// percentiles are over finished jobs only, so a target met while jobs were turned away or left
// waiting would not be met at all.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace gpumux {

enum class Bound { kAtMost, kAtLeast };

struct Objective {
  std::string metric;  // the catalogue name, e.g. "queueing_delay_s.p95"
  Bound bound = Bound::kAtMost;
  double limit = 0.0;
  bool implicit = false;  // added by the planner, not by the user

  std::string text() const;  // "queueing_delay_s.p95<=60", normalised
};

struct ObjectiveCheck {
  double value = 0.0;  // NaN when n/a (a percentile of no finished jobs): not met
  bool met = false;
};

// Parses one objective. Throws InputError naming `--objective TEXT`.
Objective parse_objective(const std::string& text);

// The user's objectives (parsed, duplicates refused) followed by the implicit ones.
std::vector<Objective> plan_objectives(const std::vector<std::string>& texts);

// True when the objective reads the inference-service summary (metrics.requests).
bool needs_services(const Objective& objective);

// The objective's value in a run's summary and whether it is met. Throws InputError when it
// needs metrics.requests and the summary has none.
ObjectiveCheck check_objective(const Objective& objective, const nlohmann::json& summary);

// Help text: the grammar, examples and the aliases (for `gpumux plan --help`).
std::string objective_help();

}  // namespace gpumux
