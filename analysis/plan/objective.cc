#include "analysis/plan/objective.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/metrics/metric_catalogue.h"
#include "analysis/metrics/summary_metrics.h"
#include "models/registry.h"
#include "sim/base/closest_names.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

constexpr double kAnyLimit = 1e15;
constexpr double kMaxFactor = 1e6;  // of a relative objective

// Limits above are refused: 1 for a share (0..1), any size otherwise.
double max_limit(const MetricInfo& m) { return m.unit == "share" ? 1.0 : kAnyLimit; }

// Every name an objective may take: the catalogue's directed metrics, then the aliases.
std::vector<std::string> objective_names() {
  std::vector<std::string> names;
  for (const auto& m : metric_catalogue()) {
    if (m.better != Better::kNeither) names.push_back(m.name);
  }
  for (const auto& a : metric_aliases()) names.push_back(a.alias);
  return names;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string format_limit(double x) {
  std::ostringstream o;
  o << std::setprecision(12) << x;
  return o.str();
}

double share_of_arrived(const nlohmann::json& jobs, std::uint64_t count) {
  const auto arrived = jobs.at("arrived").get<std::uint64_t>();
  return arrived > 0 ? static_cast<double>(count) / static_cast<double>(arrived) : 0.0;
}

// A per-endpoint objective's check: every endpoint the selector picks must have a value within
// the bound. Throws InputError when the run has no services or the selector picks none.
ObjectiveCheck check_endpoints(const Objective& o, const nlohmann::json& summary) {
  const std::vector<EndpointValue> values = endpoint_values(summary, o.metric, *o.endpoints);
  if (values.empty()) {
    throw InputError("--objective " + o.text(), o.metric,
                     "'for " + o.endpoints->text() + "' picks no endpoint of this run");
  }
  const bool at_most = o.bound == Bound::kAtMost;
  const EndpointVerdict verdict =
      judge_endpoints(values, at_most ? std::nullopt : std::optional<double>(o.limit),
                      at_most ? std::optional<double>(o.limit) : std::nullopt);
  const std::optional<double>& value = verdict.shown->value.value;
  return {value ? *value : std::nan(""), verdict.holds, o.limit, verdict.shown->id};
}

}  // namespace

std::string Objective::text() const {
  return metric + (bound == Bound::kAtMost ? "<=" : ">=") + format_limit(limit) +
         (relative_to_exclusive ? "x exclusive" : "") +
         (endpoints ? " for " + endpoints->text() : "");
}

std::string Objective::subject() const {
  return metric + (endpoints ? " for " + endpoints->text() : "");
}

Objective parse_objective(const std::string& full_text) {
  const std::string where = "--objective " + full_text;
  // "METRIC<=X for SELECTOR": the selector after the bound.
  const BoundSubject split = parse_bound_subject(full_text, where, "");
  const std::string& text = split.metric;
  const auto op = text.find_first_of("<>=");
  if (op == std::string::npos || op + 1 >= text.size() || text[op + 1] != '=' || text[op] == '=') {
    throw InputError(where, "",
                     "expected METRIC<=NUMBER or METRIC>=NUMBER, e.g. queue_p95_s<=60 (see "
                     "gpumux plan --help for the metrics)");
  }
  Objective o;
  const std::string written = trim(text.substr(0, op));
  o.metric = canonical_metric_name(written);
  o.bound = text[op] == '<' ? Bound::kAtMost : Bound::kAtLeast;
  if (o.metric == "rejected_jobs" || o.metric == "unfinished_jobs") {
    throw InputError(where, o.metric,
                     "always applies as " + o.metric + "<=0 and cannot be changed");
  }
  const MetricInfo* info = metric_catalogue().find(o.metric);
  if (!info) {
    std::string hint;
    for (const auto& c : closest_names(written, objective_names())) {
      hint += (hint.empty() ? "" : ", ") + c;
    }
    throw InputError(where, written,
                     "unknown metric" +
                         (hint.empty() ? std::string() : " (closest: " + hint + ")") +
                         "; objectives take the metric names of summary.json, e.g. "
                         "queueing_delay_s.p95 or jct_s.p99 (`gpumux metrics` lists them all)");
  }
  if (info->better == Better::kNeither) {
    throw InputError(where, o.metric,
                     "is reported but is no objective: neither a lower nor a higher value is "
                     "better (`gpumux metrics` marks which are)");
  }
  const Bound wanted = info->better == Better::kLower ? Bound::kAtMost : Bound::kAtLeast;
  if (o.bound != wanted) {
    throw InputError(where, o.metric,
                     std::string("takes ") +
                         (wanted == Bound::kAtMost ? "an upper bound (<=)" : "a lower bound (>=)"));
  }
  std::string number = trim(text.substr(op + 2));
  // A bound relative to the exclusive answer: "FACTORx exclusive", the x apart or not.
  const std::string& baseline = savings_baseline_model();
  if (number.size() >= baseline.size() &&
      number.compare(number.size() - baseline.size(), baseline.size(), baseline) == 0) {
    number = trim(number.substr(0, number.size() - baseline.size()));
    if (number.empty() || (number.back() != 'x' && number.back() != 'X')) {
      throw InputError(where, o.metric,
                       "expected FACTORx " + baseline + " after the operator, e.g. jct_s.p95<=1.1x " +
                           baseline);
    }
    number = trim(number.substr(0, number.size() - 1));
    o.relative_to_exclusive = true;
  }
  const char* first = number.data();
  const char* last = number.data() + number.size();
  const auto [end, ec] = std::from_chars(first, last, o.limit);
  if (number.empty() || ec != std::errc() || end != last || !std::isfinite(o.limit)) {
    throw InputError(where, o.metric, "expected a number after the operator, got '" + number + "'");
  }
  if (o.relative_to_exclusive) {
    if (!(o.limit > 0) || o.limit > kMaxFactor) {
      throw InputError(where, o.metric,
                       "factor " + number + " out of range (0, " + format_limit(kMaxFactor) + "]");
    }
    if (split.endpoints) {
      throw InputError(
          where, o.metric,
          "a per-endpoint bound is absolute: give a number, not a factor of " + baseline);
    }
    return o;
  }
  if (split.endpoints) {
    require_per_endpoint_metric(o.metric, where);
    o.endpoints = split.endpoints;
  }
  if (o.limit < 0 || o.limit > max_limit(*info)) {
    throw InputError(
        where, o.metric,
        "limit " + number + " out of range [0, " + format_limit(max_limit(*info)) + "]");
  }
  return o;
}

std::vector<Objective> plan_objectives(const std::vector<std::string>& texts, bool jct_guard) {
  std::vector<Objective> out;
  bool failed_given = false;
  for (const auto& t : texts) {
    Objective o = parse_objective(t);
    for (const auto& prior : out) {
      if (prior.subject() == o.subject()) {
        throw InputError("--objective " + t, o.metric,
                         o.endpoints ? "given twice for " + o.endpoints->text() +
                                           " (keep one bound per metric and selector)"
                                     : "given twice (keep one bound per metric)");
      }
    }
    failed_given = failed_given || o.metric == "failed_share";
    out.push_back(o);
  }
  out.push_back({"rejected_jobs", Bound::kAtMost, 0.0, true});
  out.push_back({"unfinished_jobs", Bound::kAtMost, 0.0, true});
  if (!failed_given) out.push_back({"failed_share", Bound::kAtMost, 0.0, true});
  const bool requests = std::any_of(out.begin(), out.end(), needs_services);
  const bool start_given = std::any_of(
      out.begin(), out.end(), [](const Objective& o) { return o.metric == kServiceStartMetric; });
  if (requests && !start_given) {
    out.push_back({kServiceStartMetric, Bound::kAtMost, kServiceStartGuardS, true});
  }
  const bool jct_given = std::any_of(out.begin(), out.end(), [](const Objective& o) {
    return !o.implicit && o.metric == "jct_s.p95";
  });
  if (jct_guard && !jct_given) {
    out.push_back({"jct_s.p95", Bound::kAtMost, kJctGuardFactor, true, true});
  }
  return out;
}

bool needs_services(const Objective& objective) {
  return objective.metric.rfind("requests.", 0) == 0;
}

double objective_value(const Objective& objective, const nlohmann::json& summary) {
  const auto& m = summary.at("metrics");
  const auto& jobs = m.at("jobs");
  const std::string& name = objective.metric;
  double value = 0.0;
  if (name == "rejected_jobs") {
    value = jobs.at("rejected").get<double>();
  } else if (name == "unfinished_jobs") {
    value =
        jobs.at("unfinished_queued").get<double>() + jobs.at("unfinished_running").get<double>();
  } else if (name == "failed_share") {
    value = share_of_arrived(jobs, jobs.at("failed").get<std::uint64_t>());
  } else if (name == "oom_kill_share") {
    value = share_of_arrived(jobs, m.at("failures").at("jobs_killed").get<std::uint64_t>());
  } else if (objective.endpoints) {
    if (!(m.contains("requests") && m["requests"].is_object())) {
      throw InputError("--objective " + objective.text(), name,
                       "the scenario has no inference services (its summary has no "
                       "metrics.requests): per-endpoint objectives need services");
    }
    return check_endpoints(objective, summary).value;
  } else {
    if (needs_services(objective) && !(m.contains("requests") && m["requests"].is_object())) {
      throw InputError("--objective " + objective.text(), name,
                       "the scenario has no inference services (its summary has no "
                       "metrics.requests): request latency and SLO objectives need services");
    }
    // A metric this kind of run does not produce is the user's mistake, reported as such; a
    // null (an empty set: no finished job, no request served) is n/a, never met.
    const nlohmann::json::json_pointer at(metric_pointer(name));
    const bool present = summary.contains(at);
    if (present && summary.at(at).is_null()) return std::nan("");
    const MetricValue v = read_metric(summary, name);
    if (!v.value) {
      throw InputError(
          "--objective " + objective.text(), name,
          present ? v.why_na
                  : "the summary has no number at metrics." + name + " (" + v.why_na + ")");
    }
    value = *v.value;
  }
  return value;
}

ObjectiveCheck check_objective(const Objective& objective, const nlohmann::json& summary,
                               double baseline) {
  if (objective.endpoints) {
    objective_value(objective, summary);  // the checks of the summary's shape
    return check_endpoints(objective, summary);
  }
  const double value = objective_value(objective, summary);
  const double bound =
      objective.relative_to_exclusive ? objective.limit * baseline : objective.limit;
  // NaN (no value, or no baseline) meets nothing: every comparison with it is false.
  const bool met = objective.bound == Bound::kAtMost ? value <= bound : value >= bound;
  return {value, met, bound, ""};
}

std::string objective_help() {
  std::string out =
      "Objectives: METRIC<=NUMBER or METRIC>=NUMBER, repeatable; all must hold. METRIC is a "
      "metric of summary.json (`gpumux metrics` lists them with units), bounded the way it "
      "improves: e.g. queueing_delay_s.p95<=60, jct_s.p99<=3600, slowdown.p95<=2, "
      "requests.latency_ms.p99<=200, requests.slo_attainment>=0.99; derived: oom_kill_share, "
      "failed_share (shares of arrived jobs).\n"
      "Relative to the exclusive answer (exclusive among --models): METRIC<=FACTORx exclusive, "
      "e.g. jct_s.p99<=1.2x exclusive.\n"
      "Per endpoint: METRIC<=NUMBER for SELECTOR, SELECTOR an endpoint's id, a glob (llm-*) or "
      "class:NAME (services' `class`): every endpoint it picks must meet the bound on its own, "
      "e.g. requests.ttft_ms.p99<=1000 for llm-*, requests.tpot_ms.p99<=50 for class:chat, "
      "requests.latency_ms.p99<=50 for vision-*; a metric once per selector.\n"
      "Always applied: rejected_jobs<=0, unfinished_jobs<=0 (queued or running when the run "
      "stopped), and failed_share<=0 unless given; and the JCT guard jct_s.p95<=1.1x exclusive "
      "unless a jct_s.p95 objective is given or --no-jct-guard (dropped, with a note, when "
      "exclusive is not among --models): a sharing model's answer cannot trade GPUs for "
      "slowdown.\n"
      "Short names (aliases):";
  for (const auto& a : metric_aliases()) out += " " + a.alias;
  return out + "\n";
}

}  // namespace gpumux
