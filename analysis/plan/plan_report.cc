#include "analysis/plan/plan_report.h"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "analysis/metrics/metric_catalogue.h"
#include "analysis/output/number_text.h"

namespace gpumux {

namespace {

std::string fixed(double x, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << x;
  return o.str();
}

const PlanModelResult* exclusive_of(const PlanResult& r) {
  for (const auto& m : r.models) {
    if (m.model == "exclusive" && m.met) return &m;
  }
  return nullptr;
}

std::string nodes_text(int n) { return std::to_string(n) + (n == 1 ? " node" : " nodes"); }

std::string check_text(const Objective& o, const ObjectiveCheck& c) {
  const MetricInfo* info = find_metric(o.metric);
  const std::string unit = info ? info->unit : "";
  const bool count = unit == "jobs" || unit == "requests" || unit == "events";
  const bool share = o.metric.find("share") != std::string::npos || unit == "share";
  const std::string value = std::isnan(c.value) ? "n/a"
                            : count             ? std::to_string(static_cast<long long>(c.value))
                                                : fixed(c.value, share ? 4 : 1);
  // The baseline's own check of an objective relative to it (bound NaN, met).
  if (o.relative_to_exclusive && c.met && std::isnan(c.bound))
    return o.metric + " " + value + " baseline";
  return o.metric + " " + value + (c.met ? " ok" : " FAIL");
}

// The objective as the table's header line shows it: a relative one with its bound.
std::string objective_text(const PlanResult& r, std::size_t i) {
  const Objective& o = r.objectives[i];
  std::string text = o.text();
  if (o.relative_to_exclusive) {
    text += std::isnan(r.baselines[i]) ? " (no exclusive answer)"
                                       : " (= " + fixed(o.limit * r.baselines[i], 1) + ")";
  }
  if (o.implicit) text += o.relative_to_exclusive ? " (JCT guard; --no-jct-guard)" : " (always)";
  return text;
}

bool has_requests(const PlanResult& r) {
  for (const auto& m : r.models) {
    for (const auto& p : m.probes) {
      if (p.metrics.contains("requests")) return true;
    }
  }
  return false;
}

nlohmann::json probe_json(const PlanResult& r, const PlanProbe& p) {
  nlohmann::json objectives = nlohmann::json::object();
  for (std::size_t i = 0; i < r.objectives.size(); ++i) {
    objectives[r.objectives[i].text()] = {{"value", p.checks[i].value}, {"met", p.checks[i].met}};
    if (r.objectives[i].relative_to_exclusive) {
      objectives[r.objectives[i].text()]["bound"] = p.checks[i].bound;
    }
  }
  const auto& m = p.metrics;
  nlohmann::json j = {
      {"size", p.size},
      {"nodes", p.nodes},
      {"gpus", p.gpus},
      {"met", p.met},
      {"objectives", objectives},
      {"jobs", m["jobs"]},
      {"gpu_allocation_ratio", m["gpu_allocation_ratio"]},
      {"sm_busy_utilization", m["sm_busy_utilization"]},
      {"queueing_delay_s", m["queueing_delay_s"]},
      {"jct_s", m["jct_s"]},
      {"failures",
       {{"memory_faults", m["failures"]["memory_faults"]},
        {"jobs_killed", m["failures"]["jobs_killed"]},
        {"jobs_failed", m["failures"]["jobs_failed"]}}},
  };
  if (m.contains("requests")) j["requests"] = m["requests"];
  return j;
}

}  // namespace

nlohmann::json plan_to_json(const PlanResult& r) {
  nlohmann::json objectives = nlohmann::json::array();
  for (std::size_t i = 0; i < r.objectives.size(); ++i) {
    const Objective& o = r.objectives[i];
    objectives.push_back({{"objective", o.text()},
                          {"metric", o.metric},
                          {"bound", o.bound == Bound::kAtMost ? "<=" : ">="},
                          {"limit", o.limit},
                          {"implicit", o.implicit}});
    if (o.relative_to_exclusive) {
      // limit is a factor of the exclusive answer's value (null: exclusive has no answer).
      objectives.back()["relative_to"] = "exclusive";
      objectives.back()["baseline"] = r.baselines[i];
    }
  }
  const PlanModelResult* exclusive = exclusive_of(r);
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : r.models) {
    nlohmann::json j = {{"model", m.model},           {"met", m.met},
                        {"params", m.params},         {"params_source", m.params_source},
                        {"parameters", m.parameters}, {"searched_down", m.searched_down}};
    j["nodes"] = m.met ? nlohmann::json(m.answer->nodes) : nlohmann::json(nullptr);
    j["gpus"] = m.met ? nlohmann::json(m.answer->gpus) : nlohmann::json(nullptr);
    j["saving_gpus"] = nullptr;
    j["saving_pct"] = nullptr;
    if (m.met && exclusive) {
      const int saved = exclusive->answer->gpus - m.answer->gpus;
      j["saving_gpus"] = saved;
      j["saving_pct"] = 100.0 * saved / exclusive->answer->gpus;
    }
    j["at_answer"] = m.answer ? probe_json(r, *m.answer) : nlohmann::json(nullptr);
    j["one_below"] = m.one_below ? probe_json(r, *m.one_below) : nlohmann::json(nullptr);
    if (m.largest) j["largest_tried"] = probe_json(r, *m.largest);
    nlohmann::json sizes = nlohmann::json::array();
    for (const auto& p : m.probes) sizes.push_back({{"nodes", p.nodes}, {"met", p.met}});
    j["probes"] = sizes;
    models.push_back(j);
  }
  return {{"scenario", r.scenario_name},
          {"file", r.scenario_file},
          {"seed", r.seed},
          {"scheduler", r.scheduler},
          {"trace", r.trace},
          {"objectives", objectives},
          {"size_step", {{"groups", r.unit}, {"nodes", r.unit_nodes}, {"gpus", r.unit_gpus}}},
          {"max_nodes", r.max_nodes},
          {"max_size", r.max_size},
          {"runs", r.runs},
          {"all_met", r.all_met()},
          {"notes", r.notes},
          {"models", models}};
}

void print_plan_table(const PlanResult& r, std::ostream& out) {
  out << "gpumux plan  scenario '" << r.scenario_name << "' (" << r.scenario_file << ")  seed "
      << r.seed << "\n";
  out << "objectives  ";
  for (std::size_t i = 0; i < r.objectives.size(); ++i) {
    out << (i ? ", " : "") << objective_text(r, i);
  }
  out << "\n";
  for (const auto& note : r.notes) out << "note        " << note << "\n";
  out << "\n";
  const bool requests = has_requests(r);
  const PlanModelResult* exclusive = exclusive_of(r);
  out << std::left << std::setw(15) << "model" << std::right << std::setw(7) << "nodes"
      << std::setw(7) << "GPUs" << std::setw(16) << "saving vs excl" << std::setw(8) << "alloc"
      << std::setw(9) << "SM-busy" << std::setw(12) << "queue p95 s" << std::setw(11)
      << "JCT p95 s";
  if (requests) out << std::setw(13) << "req p95 ms" << std::setw(8) << "SLO";
  out << std::setw(7) << "kills"
      << "  one size below\n";
  for (const auto& m : r.models) {
    out << std::left << std::setw(15) << m.model << std::right;
    if (!m.met) {
      out << "  not met within --max-nodes " << r.max_nodes
          << " (largest tried: " << nodes_text(m.largest->nodes) << ", " << m.largest->gpus
          << " GPUs; failed:";
      for (std::size_t i = 0; i < r.objectives.size(); ++i) {
        if (!m.largest->checks[i].met)
          out << " " << check_text(r.objectives[i], m.largest->checks[i]);
      }
      out << ")\n";
      continue;
    }
    const PlanProbe& a = *m.answer;
    const auto& x = a.metrics;
    std::string saving = "-";
    if (exclusive) {
      const int saved = exclusive->answer->gpus - a.gpus;
      saving =
          std::to_string(saved) + " (" + fixed(100.0 * saved / exclusive->answer->gpus, 1) + "%)";
    }
    out << std::setw(7) << a.nodes << std::setw(7) << a.gpus << std::setw(16) << saving
        << std::setw(8) << fixed_or_na(x["gpu_allocation_ratio"], 1, 100) + "%" << std::setw(9)
        << fixed_or_na(x["sm_busy_utilization"], 1, 100) + "%" << std::setw(12)
        << fixed_or_na(x["queueing_delay_s"]["p95"], 1) << std::setw(11)
        << fixed_or_na(x["jct_s"]["p95"], 1);
    if (requests) {
      const bool has = x.contains("requests");
      out << std::setw(13) << (has ? fixed_or_na(x["requests"]["latency_ms"]["p95"], 1) : "-")
          << std::setw(8) << (has ? fixed_or_na(x["requests"]["slo_attainment"], 4) : "-");
    }
    out << std::setw(7) << x["failures"]["jobs_killed"].get<std::uint64_t>() << "  ";
    if (m.one_below) {
      out << nodes_text(m.one_below->nodes) << " fails";
    } else {
      out << "none (smallest size)";
    }
    if (m.searched_down) out << "; a smaller size also met: searched down";
    out << "\n";
  }
  out << "\nobjectives at the answer and one size below (not met: at the largest size tried)\n";
  for (const auto& m : r.models) {
    auto line = [&](const char* label, const PlanProbe& p) {
      out << "  " << std::left << std::setw(15) << label << std::right << std::setw(9)
          << nodes_text(p.nodes) << ":";
      for (std::size_t i = 0; i < r.objectives.size(); ++i) {
        out << (i ? ", " : " ") << check_text(r.objectives[i], p.checks[i]);
      }
      out << "\n";
    };
    if (m.answer) line(m.model.c_str(), *m.answer);
    if (m.one_below) line(m.answer ? "" : m.model.c_str(), *m.one_below);
    if (m.largest) line(m.model.c_str(), *m.largest);
  }
  out << "\nassumptions\n";
  out << "  scheduler  " << r.scheduler << ", seed " << r.seed << ", trace " << r.trace << "\n";
  out << "  sizes      one size step = ";
  for (std::size_t i = 0; i < r.unit.size(); ++i) {
    const auto& g = r.unit[i];
    out << (i ? " + " : "") << g["nodes"].get<int>() << " x " << g["group"].get<std::string>()
        << " (" << g["gpus_per_node"].get<int>() << " x " << g["device"].get<std::string>() << ")";
  }
  out << "; up to " << r.max_nodes << " nodes (" << r.max_size << " steps); " << r.runs
      << " runs\n";
  for (const auto& m : r.models) {
    out << "  " << std::left << std::setw(11) << m.model << std::right << "params "
        << m.params.dump() << " from " << m.params_source << "\n";
    for (const auto& p : m.parameters) {
      out << "             " << parameter_text(p) << "\n";
    }
  }
  if (!r.all_met()) {
    out << "\nNOT MET within --max-nodes " << r.max_nodes << ":";
    for (const auto& m : r.models) {
      if (!m.met) out << " " << m.model;
    }
    out << "\n";
  }
}

}  // namespace gpumux
