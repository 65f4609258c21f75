// Objectives a cluster must meet, as `gpumux plan --objective` writes them, and their check
// against a run's summary.json.
//
// Grammar: METRIC<=NUMBER or METRIC>=NUMBER (spaces allowed around the operator), or a bound
// relative to the plan's exclusive answer, METRIC<=FACTORx exclusive (e.g.
// jct_s.p95<=1.1x exclusive: at most 1.1 times the metric's value in exclusive's answer; the
// `x` may stand apart, FACTOR in (0, 1e6]). METRIC is a
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
// The JCT guard (on unless turned off, and unless a jct_s.p95 objective is given):
//   jct_s.p95<=1.1x exclusive, so that a sharing model's answer cannot buy GPUs with slowdown.
// The availability guard (with a request objective, unless a requests.start_delay_s.max
//   objective is given): requests.start_delay_s.max<=60 s, since a service's requests count
//   only from its first start, so a service waiting hours for a GPU would meet a latency target.
// Per endpoint: METRIC<=NUMBER for SELECTOR (analysis/metrics/endpoint_selector.h: an id, a
// glob such as llm-*, or class:NAME) holds when every endpoint the selector picks meets the
// bound on its own numbers; e.g. requests.ttft_ms.p99<=1000 for llm-*. Only the request metrics
// an endpoint reports alone take a selector, never a bound relative to exclusive. A metric may
// be given once per selector (and once without). A selector that picks no endpoint of a run is
// an InputError naming the objective.
// A relative objective needs exclusive among the plan's models (its answer is the baseline, and
// exclusive itself does not check it); the planner drops the guard, saying so, when exclusive
// is not asked.
#pragma once

#include <cmath>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/metrics/endpoint_selector.h"

namespace gpumux {

enum class Bound { kAtMost, kAtLeast };

struct Objective {
  std::string metric;  // the catalogue name, e.g. "queueing_delay_s.p95"
  Bound bound = Bound::kAtMost;
  double limit = 0.0;
  bool implicit = false;  // added by the planner, not by the user
  // `limit` is a factor of the metric's value in the exclusive answer (METRIC<=1.1x exclusive).
  bool relative_to_exclusive = false;
  // Each endpoint it picks must meet the bound (none: the pooled metric).
  std::optional<EndpointSelector> endpoints = std::nullopt;

  // "queueing_delay_s.p95<=60", "jct_s.p95<=1.1x exclusive",
  // "requests.ttft_ms.p99<=1000 for llm-*", normalised.
  std::string text() const;
  // What it bounds: the metric, and " for SELECTOR" when it has one.
  std::string subject() const;
};

struct ObjectiveCheck {
  double value = 0.0;  // NaN when n/a (a percentile of no finished jobs): not met
  bool met = false;
  // The bound the value was held to: the limit, or for a relative objective factor x the
  // baseline (NaN when there is no baseline: exclusive met the objectives at no size).
  double bound = 0.0;
  // Per endpoint: whose value `value` is (the first picked endpoint that misses, else the one
  // nearest its bound).
  std::string endpoint;
};

// The guard every plan applies unless turned off: jct_s.p95<=1.1x exclusive.
inline constexpr double kJctGuardFactor = 1.1;
// The availability guard's bound, s: every service starts within a minute of its arrival.
inline constexpr double kServiceStartGuardS = 60.0;
inline constexpr const char* kServiceStartMetric = "requests.start_delay_s.max";

// Parses one objective. Throws InputError naming `--objective TEXT`.
Objective parse_objective(const std::string& text);

// The user's objectives (parsed, duplicates refused) followed by the implicit ones: the
// always-applied ones, the availability guard when a request objective is given and no
// requests.start_delay_s.max one, then the JCT guard when `jct_guard` and no jct_s.p95
// objective is given.
std::vector<Objective> plan_objectives(const std::vector<std::string>& texts,
                                       bool jct_guard = false);

// True when the objective reads the inference-service summary (metrics.requests).
bool needs_services(const Objective& objective);

// The objective's value in a run's summary and whether it is met. A relative objective is held
// to factor x `baseline` (its metric's value in the exclusive answer); without a baseline (NaN)
// it is not met. Throws InputError when it needs metrics.requests and the summary has none.
ObjectiveCheck check_objective(const Objective& objective, const nlohmann::json& summary,
                               double baseline = std::nan(""));

// The objective's metric in a run's summary (NaN when n/a), as check_objective reads it.
double objective_value(const Objective& objective, const nlohmann::json& summary);

// Help text: the grammar, examples and the aliases (for `gpumux plan --help`).
std::string objective_help();

}  // namespace gpumux
