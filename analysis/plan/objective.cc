#include "analysis/plan/objective.h"

#include <charconv>
#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/base/input_error.h"

namespace gpumux {

namespace {

// One metric the grammar knows: its direction, the range its limit may take, and its meaning.
struct MetricInfo {
  std::string name;
  Bound bound;
  double max_limit;  // limits above are refused (1 for shares of jobs, huge for durations)
  std::string meaning;
};

const std::vector<MetricInfo>& metric_table() {
  static const std::vector<MetricInfo> table = [] {
    std::vector<MetricInfo> t;
    constexpr double kAny = 1e15;
    for (const char* stat : {"mean", "p50", "p90", "p95", "p99", "max"}) {
      const std::string s = stat;
      t.push_back({"queue_" + s + "_s", Bound::kAtMost, kAny,
                   "queueing delay " + s + ", seconds (metrics.queueing_delay_s." + s + ")"});
    }
    for (const char* stat : {"mean", "p50", "p90", "p95", "p99", "max"}) {
      const std::string s = stat;
      t.push_back({"jct_" + s + "_s", Bound::kAtMost, kAny,
                   "job completion time " + s + ", seconds (metrics.jct_s." + s + ")"});
    }
    for (const char* stat : {"mean", "p50", "p90", "p95", "p99", "max"}) {
      const std::string s = stat;
      t.push_back({"request_" + s + "_ms", Bound::kAtMost, kAny,
                   "inference request latency " + s +
                       ", milliseconds "
                       "(metrics.requests.latency_ms." +
                       s + "; needs services)"});
    }
    t.push_back({"slo_attainment", Bound::kAtLeast, 1.0,
                 "share of requests within their SLO, 0..1 (metrics.requests.slo_attainment; "
                 "needs services)"});
    t.push_back({"oom_kill_share", Bound::kAtMost, kAny,
                 "out-of-memory kills per arrived job (failures.jobs_killed / jobs.arrived)"});
    t.push_back({"failed_share", Bound::kAtMost, 1.0,
                 "share of arrived jobs that failed after their retries (jobs.failed / "
                 "jobs.arrived; default <=0)"});
    return t;
  }();
  return table;
}

const MetricInfo* find_metric(const std::string& name) {
  for (const auto& m : metric_table()) {
    if (m.name == name) return &m;
  }
  return nullptr;
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

}  // namespace

std::string Objective::text() const {
  return metric + (bound == Bound::kAtMost ? "<=" : ">=") + format_limit(limit);
}

Objective parse_objective(const std::string& text) {
  const std::string where = "--objective " + text;
  const auto op = text.find_first_of("<>=");
  if (op == std::string::npos || op + 1 >= text.size() || text[op + 1] != '=' || text[op] == '=') {
    throw InputError(where, "",
                     "expected METRIC<=NUMBER or METRIC>=NUMBER, e.g. queue_p95_s<=60 (see "
                     "gpumux plan --help for the metrics)");
  }
  Objective o;
  o.metric = trim(text.substr(0, op));
  o.bound = text[op] == '<' ? Bound::kAtMost : Bound::kAtLeast;
  const MetricInfo* info = find_metric(o.metric);
  if (!info) {
    std::string valid;
    for (const auto& m : metric_table()) valid += (valid.empty() ? "" : ", ") + m.name;
    if (o.metric == "rejected_jobs" || o.metric == "unfinished_jobs") {
      throw InputError(where, o.metric,
                       "always applies as " + o.metric + "<=0 and cannot be changed");
    }
    throw InputError(where, o.metric, "unknown metric (valid: " + valid + ")");
  }
  if (o.bound != info->bound) {
    throw InputError(
        where, o.metric,
        std::string("takes ") +
            (info->bound == Bound::kAtMost ? "an upper bound (<=)" : "a lower bound (>=)"));
  }
  const std::string number = trim(text.substr(op + 2));
  const char* first = number.data();
  const char* last = number.data() + number.size();
  const auto [end, ec] = std::from_chars(first, last, o.limit);
  if (number.empty() || ec != std::errc() || end != last || !std::isfinite(o.limit)) {
    throw InputError(where, o.metric, "expected a number after the operator, got '" + number + "'");
  }
  if (o.limit < 0 || o.limit > info->max_limit) {
    throw InputError(
        where, o.metric,
        "limit " + number + " out of range [0, " + format_limit(info->max_limit) + "]");
  }
  return o;
}

std::vector<Objective> plan_objectives(const std::vector<std::string>& texts) {
  std::vector<Objective> out;
  bool failed_given = false;
  for (const auto& t : texts) {
    Objective o = parse_objective(t);
    for (const auto& prior : out) {
      if (prior.metric == o.metric) {
        throw InputError("--objective " + t, o.metric, "given twice (keep one bound per metric)");
      }
    }
    failed_given = failed_given || o.metric == "failed_share";
    out.push_back(o);
  }
  out.push_back({"rejected_jobs", Bound::kAtMost, 0.0, true});
  out.push_back({"unfinished_jobs", Bound::kAtMost, 0.0, true});
  if (!failed_given) out.push_back({"failed_share", Bound::kAtMost, 0.0, true});
  return out;
}

bool needs_services(const Objective& objective) {
  return objective.metric.rfind("request_", 0) == 0 || objective.metric == "slo_attainment";
}

ObjectiveCheck check_objective(const Objective& objective, const nlohmann::json& summary) {
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
  } else if (needs_services(objective)) {
    if (!m.contains("requests") || !m["requests"].is_object()) {
      throw InputError("--objective " + objective.text(), name,
                       "the scenario has no inference services (its summary has no "
                       "metrics.requests): request latency and SLO objectives need services");
    }
    const auto& r = m["requests"];
    // The services' summary is another module's: a missing or non-numeric value is reported as
    // what it is, not as an internal error.
    const bool slo = name == "slo_attainment";
    const std::string stat = slo ? "" : name.substr(8, name.size() - 8 - 3);  // request_<stat>_ms
    const nlohmann::json* v = nullptr;
    if (slo && r.contains("slo_attainment")) v = &r["slo_attainment"];
    if (!slo && r.contains("latency_ms") && r["latency_ms"].is_object() &&
        r["latency_ms"].contains(stat)) {
      v = &r["latency_ms"][stat];
    }
    if (v && v->is_null()) return {std::nan(""), false};  // no request served: n/a
    if (!v || !v->is_number()) {
      throw InputError("--objective " + objective.text(), name,
                       "the summary has no number at metrics.requests." +
                           (slo ? std::string("slo_attainment") : "latency_ms." + stat));
    }
    value = v->get<double>();
  } else {
    // queue_<stat>_s or jct_<stat>_s
    const bool queue = name.rfind("queue_", 0) == 0;
    const std::size_t prefix = queue ? 6 : 4;
    const std::string stat = name.substr(prefix, name.size() - prefix - 2);
    const nlohmann::json& v = m.at(queue ? "queueing_delay_s" : "jct_s").at(stat);
    if (v.is_null()) return {std::nan(""), false};  // no finished job: n/a, never met
    value = v.get<double>();
  }
  const bool met =
      objective.bound == Bound::kAtMost ? value <= objective.limit : value >= objective.limit;
  return {value, met};
}

std::string objective_help() {
  std::string out =
      "Objectives: METRIC<=NUMBER or METRIC>=NUMBER, repeatable; all must hold.\n"
      "Always applied: rejected_jobs<=0, unfinished_jobs<=0 (queued or running when the run "
      "stopped), and failed_share<=0 unless given.\n";
  for (const auto& m : metric_table()) {
    out += "  " + m.name + (m.bound == Bound::kAtMost ? " <= " : " >= ") + m.meaning + "\n";
  }
  return out;
}

}  // namespace gpumux
