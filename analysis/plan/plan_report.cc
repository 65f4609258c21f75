#include "analysis/plan/plan_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "analysis/metrics/metric_catalogue.h"
#include "analysis/output/number_text.h"
#include "analysis/plan/incurable_rejections.h"
#include "models/registry.h"
#include "sim/base/terminal_text.h"

namespace gpumux {

namespace {

std::string fixed(double x, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << x;
  return o.str();
}

const PlanModelResult* exclusive_of(const PlanResult& r) {
  for (const auto& m : r.models) {
    if (capabilities_of(m.model).savings_baseline && m.met) return &m;
  }
  return nullptr;
}

std::string nodes_text(int n) { return std::to_string(n) + (n == 1 ? " node" : " nodes"); }

std::string check_text(const Objective& o, const ObjectiveCheck& c) {
  const MetricInfo* info = metric_catalogue().find(o.metric);
  const std::string unit = info ? info->unit : "";
  const bool count = unit == "jobs" || unit == "requests" || unit == "events";
  const bool share = o.metric.find("share") != std::string::npos || unit == "share";
  const std::string value = std::isnan(c.value) ? "n/a"
                            : count             ? std::to_string(static_cast<long long>(c.value))
                                                : fixed(c.value, share ? 4 : 1);
  // The baseline's own check of an objective relative to it (bound NaN, met).
  if (o.relative_to_exclusive && c.met && std::isnan(c.bound))
    return o.metric + " " + value + " baseline";
  // Per endpoint: whose value it is.
  const std::string whose = c.endpoint.empty() ? "" : " (" + c.endpoint + ")";
  return o.subject() + " " + value + whose + (c.met ? " ok" : " FAIL");
}

// A relative objective's bound over the seeds: "X" or "X..Y" (NaN: no exclusive answer).
std::string bound_text(const PlanResult& r, std::size_t i) {
  const auto& b = r.baselines[i];
  double lo = INFINITY, hi = -INFINITY;
  for (double v : b) {
    if (std::isnan(v)) return "";
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (b.empty()) return "";
  const double f = r.objectives[i].limit;
  return lo == hi ? fixed(f * lo, 1) : fixed(f * lo, 1) + ".." + fixed(f * hi, 1) + " by seed";
}

// The objective as the table's header line shows it: a relative one with its bound.
std::string objective_text(const PlanResult& r, std::size_t i) {
  const Objective& o = r.objectives[i];
  std::string text = o.text();
  if (o.relative_to_exclusive) {
    const std::string bound = bound_text(r, i);
    text += bound.empty() ? " (no exclusive answer)" : " (= " + bound + ")";
  }
  if (o.implicit) {
    text += o.relative_to_exclusive           ? " (JCT guard; --no-jct-guard)"
            : o.metric == kServiceStartMetric ? " (services available; bound it to change)"
                                              : " (always)";
  }
  return text;
}

// A JSON number, or null for NaN (nlohmann writes NaN as null too; this says so on purpose).
nlohmann::json number_or_null(double x) {
  return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x);
}

// The request latency percentile the objectives bound (p95 when none does).
std::string request_percentile(const PlanResult& r) {
  const std::string prefix = "requests.latency_ms.";
  for (const auto& o : r.objectives) {
    if (o.metric.rfind(prefix, 0) == 0) return o.metric.substr(prefix.size());
  }
  return "p95";
}

bool has_requests(const PlanResult& r) {
  for (const auto& m : r.models) {
    for (const auto& p : m.probes) {
      if (p.metrics.contains("requests")) return true;
    }
  }
  return false;
}

nlohmann::json objectives_json(const PlanResult& r, const std::vector<ObjectiveCheck>& checks) {
  nlohmann::json objectives = nlohmann::json::object();
  for (std::size_t i = 0; i < r.objectives.size(); ++i) {
    objectives[r.objectives[i].text()] = {{"value", number_or_null(checks[i].value)},
                                          {"met", checks[i].met}};
    if (r.objectives[i].relative_to_exclusive) {
      objectives[r.objectives[i].text()]["bound"] = number_or_null(checks[i].bound);
    }
    if (!checks[i].endpoint.empty())
      objectives[r.objectives[i].text()]["endpoint"] = checks[i].endpoint;
  }
  return objectives;
}

// The rejected jobs by reason: [{reason, jobs, at_every_size, most_memory_mib, most_gpus,
// profile_requests, profile (when some name one)}].
nlohmann::json rejections_json(const std::vector<RejectionCount>& counts) {
  nlohmann::json out = nlohmann::json::array();
  for (const RejectionCount& c : counts) {
    out.push_back({{"reason", c.reason},
                   {"jobs", c.jobs},
                   {"at_every_size", rejected_at_every_size(c.reason)},
                   {"most_memory_mib", c.most_memory.mib()},
                   {"most_gpus", c.most_gpus},
                   {"profile_requests", c.profile_requests}});
    if (c.profile_requests > 0) out.back()["profile"] = c.profile;
  }
  return out;
}

// A MIG model's layout for plan.json (null for a model without layouts).
nlohmann::json layout_json(const PlanModelResult& m) {
  if (m.layout.empty()) return nullptr;
  return {{"name", m.layout}, {"origin", m.layout_origin}, {"by_device", m.layout_by_device}};
}

// The searches of `m` under the layout that answered (all of them for a model without layouts).
std::vector<const PlanPlacementResult*> answer_layout_searches(const PlanModelResult& m) {
  std::vector<const PlanPlacementResult*> out;
  for (const auto& pl : m.placements) {
    if (pl.layout == m.layout) out.push_back(&pl);
  }
  return out;
}

// One search's outcome in words: "4 nodes", "none below 4 nodes (stopped)", "not met".
std::string search_text(const PlanPlacementResult& pl) {
  return pl.met                    ? nodes_text(pl.answer_nodes)
         : pl.stopped_at_nodes > 0 ? "none below " + nodes_text(pl.stopped_at_nodes) + " (stopped)"
                                   : "not met";
}

// For models searched under several layouts: each layout and its searches, one line each.
void print_layouts_searched(const PlanResult& r, std::ostream& out) {
  const bool any = std::any_of(r.models.begin(), r.models.end(),
                               [](const PlanModelResult& m) { return m.layouts_searched > 1; });
  if (!any) return;
  out << "\nlayouts searched (MIG models: the answer is the smallest cluster over layouts and "
         "placements)\n";
  for (const auto& m : r.models) {
    if (m.layouts_searched <= 1) continue;
    std::string shown_layout;
    for (const auto& pl : m.placements) {
      if (pl.layout == shown_layout) continue;
      shown_layout = pl.layout;
      out << "  " << std::left << std::setw(15) << (&pl == &m.placements.front() ? m.model : "")
          << std::right << (pl.layout == m.layout ? "* " : "  ") << pl.layout << " ("
          << pl.layout_origin << "): ";
      if (!pl.incurable.empty()) {
        out << "not met: " << pl.incurable << "\n";
        continue;
      }
      bool first = true;
      for (const auto& other : m.placements) {
        if (other.layout != pl.layout) continue;
        out << (first ? "" : "; ") << other.placement << " "
            << (other.incurable.empty() ? search_text(other) : "not met (incurable rejections)");
        first = false;
      }
      out << "\n";
    }
  }
  out << "  (* the layout of the answer, or of the search shown when none met)\n";
}

nlohmann::json probe_json(const PlanResult& r, const PlanProbe& p) {
  const auto& m = p.metrics;
  nlohmann::json j = {
      {"size", p.size},
      {"nodes", p.nodes},
      {"gpus", p.gpus},
      {"met", p.met},
      {"seeds_met", p.seeds_met},
      {"metrics_seed", p.metrics_seed},
      {"objectives", objectives_json(r, p.checks)},
      {"gpu_hours", p.gpu_hours},
      {"jobs", m["jobs"]},
      {"gpu_allocation_ratio", m["gpu_allocation_ratio"]},
      {"sm_busy_utilization", m["sm_busy_utilization"]},
      {"queueing_delay_s", m["queueing_delay_s"]},
      {"jct_s", m["jct_s"]},
      {"makespan_s", m["makespan_s"]},
      {"failures",
       {{"memory_faults", m["failures"]["memory_faults"]},
        {"jobs_killed", m["failures"]["jobs_killed"]},
        {"jobs_failed", m["failures"]["jobs_failed"]}}},
  };
  if (m.contains("slowdown")) j["slowdown"] = m["slowdown"];
  if (m.contains("requests")) j["requests"] = m["requests"];
  if (r.price_per_gpu_hour > 0) j["cost"] = p.gpu_hours * r.price_per_gpu_hour;
  if (!p.rejected_by_reason.empty())
    j["rejected_by_reason"] = rejections_json(p.rejected_by_reason);
  if (p.runs.size() > 1) {
    nlohmann::json seeds = nlohmann::json::array();
    for (const auto& run : p.runs) {
      seeds.push_back(
          {{"seed", run.seed}, {"met", run.met}, {"objectives", objectives_json(r, run.checks)}});
    }
    j["seeds"] = seeds;
  }
  return j;
}

// Per seed: the smallest size run that met the objectives for that seed (an upper bound on the
// seed's own answer), and whether the size below it was run and failed for it (then exact).
struct SeedSize {
  std::uint64_t seed = 0;
  int nodes = 0;  // 0: no size run met for this seed
  bool exact = false;
};

std::vector<SeedSize> seed_sizes(const PlanResult& r, const PlanModelResult& m) {
  std::vector<SeedSize> out;
  for (std::size_t k = 0; k < r.seeds.size(); ++k) {
    SeedSize s;
    s.seed = r.seeds[k];
    const PlanProbe* prev = nullptr;
    for (const auto& p : m.probes) {
      if (p.runs[k].met) {
        s.nodes = p.nodes;
        s.exact = p.size == 1 || (prev && prev->size == p.size - 1 && !prev->runs[k].met);
        break;
      }
      prev = &p;
    }
    out.push_back(s);
  }
  return out;
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
    if (o.endpoints) objectives.back()["endpoints"] = o.endpoints->text();
    if (o.relative_to_exclusive) {
      // limit is a factor of the exclusive answer's value (null: exclusive has no answer).
      objectives.back()["relative_to"] = savings_baseline_model();
      nlohmann::json baselines = nlohmann::json::array();
      for (double b : r.baselines[i]) baselines.push_back(number_or_null(b));
      objectives.back()["baseline"] = baselines[0];  // the scenario's seed
      objectives.back()["baseline_by_seed"] = baselines;
    }
  }
  const PlanModelResult* exclusive = exclusive_of(r);
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : r.models) {
    nlohmann::json j = {
        {"model", m.model},
        {"met", m.met},
        {"placement", m.placement},
        {"params", m.params},
        {"layout", layout_json(m)},
        {"layouts_searched", m.layouts_searched},
        {"incurable", m.incurable.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.incurable)},
        {"params_source", m.params_source},
        {"parameters", m.parameters},
        {"searched_down", m.searched_down}};
    j["nodes"] = m.met ? nlohmann::json(m.answer->nodes) : nlohmann::json(nullptr);
    j["gpus"] = m.met ? nlohmann::json(m.answer->gpus) : nlohmann::json(nullptr);
    j["gpu_hours"] = m.met ? nlohmann::json(m.answer->gpu_hours) : nlohmann::json(nullptr);
    j["saving_gpus"] = nullptr;
    j["saving_pct"] = nullptr;
    if (m.met && exclusive) {
      const int saved = exclusive->answer->gpus - m.answer->gpus;
      j["saving_gpus"] = saved;
      j["saving_pct"] = 100.0 * saved / exclusive->answer->gpus;
      j["saving_gpu_hours"] = exclusive->answer->gpu_hours - m.answer->gpu_hours;
      if (r.price_per_gpu_hour > 0) {
        j["saving_cost"] =
            (exclusive->answer->gpu_hours - m.answer->gpu_hours) * r.price_per_gpu_hour;
      }
    }
    j["at_answer"] = m.answer ? probe_json(r, *m.answer) : nlohmann::json(nullptr);
    j["one_below"] = m.one_below ? probe_json(r, *m.one_below) : nlohmann::json(nullptr);
    if (m.largest) j["largest_tried"] = probe_json(r, *m.largest);
    nlohmann::json sizes = nlohmann::json::array();
    for (const auto& p : m.probes) sizes.push_back(probe_json(r, p));
    j["probes"] = sizes;
    nlohmann::json placements = nlohmann::json::array();
    for (const auto& pl : m.placements) {
      nlohmann::json probes = nlohmann::json::array();
      for (const auto& p : pl.probes) probes.push_back(probe_json(r, p));
      placements.push_back(
          {{"placement", pl.placement},
           {"layout", pl.layout.empty() ? nlohmann::json(nullptr) : nlohmann::json(pl.layout)},
           {"incurable",
            pl.incurable.empty() ? nlohmann::json(nullptr) : nlohmann::json(pl.incurable)},
           {"met", pl.met},
           {"nodes", pl.met ? nlohmann::json(pl.answer_nodes) : nlohmann::json(nullptr)},
           {"searched_down", pl.searched_down},
           {"stopped_at_nodes",
            pl.stopped_at_nodes ? nlohmann::json(pl.stopped_at_nodes) : nlohmann::json(nullptr)},
           {"probes", probes}});
    }
    j["placements"] = placements;
    if (r.seeds.size() > 1) {
      nlohmann::json per_seed = nlohmann::json::array();
      for (const auto& s : seed_sizes(r, m)) {
        per_seed.push_back({{"seed", s.seed},
                            {"nodes", s.nodes ? nlohmann::json(s.nodes) : nlohmann::json(nullptr)},
                            {"exact", s.exact}});
      }
      j["per_seed"] = per_seed;
    }
    models.push_back(j);
  }
  return {{"scenario", r.scenario_name},
          {"file", r.scenario_file},
          {"seed", r.seed},
          {"seeds", r.seeds},
          {"seeds_required", r.seeds_required},
          {"scheduler", r.scheduler},
          {"placements", r.placements},
          {"trace", r.trace},
          {"load_factor", r.load_factor},
          {"price_per_gpu_hour", r.price_per_gpu_hour},
          {"objectives", objectives},
          {"size_step", {{"groups", r.unit}, {"nodes", r.unit_nodes}, {"gpus", r.unit_gpus}}},
          {"max_nodes", r.max_nodes},
          {"max_size", r.max_size},
          {"runs", r.runs},
          {"all_met", r.all_met()},
          {"notes", r.notes},
          {"defaulted_fields", r.defaulted_fields},
          {"provenance", r.provenance},
          {"models", models}};
}

void print_plan_table(const PlanResult& r, std::ostream& out) {
  out << "gpumux plan  scenario '" << terminal_text(r.scenario_name) << "' ("
      << terminal_text(r.scenario_file) << ")  seed "
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
  const std::string request_pct = request_percentile(r);
  const bool cost = r.price_per_gpu_hour > 0;
  out << std::left << std::setw(15) << "model" << std::right << std::setw(7) << "nodes"
      << std::setw(7) << "GPUs" << std::setw(11) << "placement" << std::setw(16) << "saving vs excl"
      << std::setw(8) << "alloc" << std::setw(9) << "SM-busy" << std::setw(12) << "queue p95 s"
      << std::setw(11) << "JCT p95 s" << std::setw(10) << "GPU-h";
  if (cost) out << std::setw(12) << "cost";
  if (requests) out << std::setw(13) << "req " + request_pct + " ms" << std::setw(8) << "SLO";
  out << std::setw(7) << "kills"
      << "  one size below\n";
  for (const auto& m : r.models) {
    out << std::left << std::setw(15) << m.model << std::right;
    if (!m.met && !m.incurable.empty()) {
      out << "  not met: " << m.incurable << "\n";
      continue;
    }
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
    out << std::setw(7) << a.nodes << std::setw(7) << a.gpus << std::setw(11) << m.placement
        << std::setw(16) << saving << std::setw(8)
        << fixed_or_na(x["gpu_allocation_ratio"], 1, 100) + "%" << std::setw(9)
        << fixed_or_na(x["sm_busy_utilization"], 1, 100) + "%" << std::setw(12)
        << fixed_or_na(x["queueing_delay_s"]["p95"], 1) << std::setw(11)
        << fixed_or_na(x["jct_s"]["p95"], 1) << std::setw(10) << fixed(a.gpu_hours, 0);
    if (cost) out << std::setw(12) << fixed(a.gpu_hours * r.price_per_gpu_hour, 2);
    if (requests) {
      const bool has = x.contains("requests");
      out << std::setw(13)
          << (has && x["requests"]["latency_ms"].contains(request_pct)
                  ? fixed_or_na(x["requests"]["latency_ms"][request_pct], 1)
                  : "-")
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
    if (!m.layout.empty()) out << "  layout " << m.layout << " (" << m.layout_origin << ")\n";
  }
  out << "\nplacements searched (the answer: the smallest cluster over them)\n";
  for (const auto& m : r.models) {
    out << "  " << std::left << std::setw(15) << m.model << std::right;
    const auto searches = answer_layout_searches(m);
    for (std::size_t i = 0; i < searches.size(); ++i) {
      out << (i ? "; " : "") << searches[i]->placement << " " << search_text(*searches[i]);
    }
    out << "\n";
  }
  print_layouts_searched(r, out);
  if (r.seeds.size() > 1) {
    out << "\nseeds: an answer meets the objectives for at least " << r.seeds_required << " of "
        << r.seeds.size() << " seeds; per seed, the smallest size run that met (<=: the size "
        << "below was not run for it)\n";
    for (const auto& m : r.models) {
      out << "  " << std::left << std::setw(15) << m.model << std::right;
      const auto sizes = seed_sizes(r, m);
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        out << (i ? ", " : "") << "seed " << sizes[i].seed << ": "
            << (sizes[i].nodes == 0 ? std::string("not met")
                                    : (sizes[i].exact ? "" : "<=") + nodes_text(sizes[i].nodes));
      }
      out << "\n";
    }
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
  out << "  scheduler  " << r.scheduler << ", placements searched:";
  for (const auto& p : r.placements) out << " " << p;
  out << "; seeds";
  for (auto seed : r.seeds) out << " " << seed;
  out << "; trace " << r.trace;
  if (r.load_factor != 1.0) out << " at load x" << fixed(r.load_factor, 2) << " (arrival rate)";
  out << "\n";
  // The trace fields filled from defaults (as `gpumux run` lists them): every answer rests on
  // them. Fields whose default is empty or whole (no effect) are left out.
  std::string builtin;
  const nlohmann::json defaulted =
      r.defaulted_fields.is_object() ? r.defaulted_fields : nlohmann::json::object();
  for (const auto& [field, use] : defaulted.items()) {
    if (field == "mig_profile" || field == "tenant" || field == "gpu_milli") continue;
    if (use.value("source", "") == "built-in default") {
      builtin += (builtin.empty() ? "" : ", ") + field + "=" + use["value"].dump();
      continue;
    }
    out << "  default    " << field << " ~ " << use["value"].dump() << " ("
        << use.value("source", "") << ", " << use["rows"] << " rows): an assumption of every "
        << "answer\n";
  }
  if (!builtin.empty()) out << "  default    " << builtin << " (built-in, not in the trace)\n";
  out << "  GPU-h      the cluster's GPUs x the makespan (first arrival to last end), hours";
  if (cost) out << "; cost at " << fixed(r.price_per_gpu_hour, 2) << " per GPU-hour";
  out << "\n";
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

nlohmann::json plans_by_load_to_json(const std::vector<PlanResult>& results) {
  nlohmann::json loads = nlohmann::json::array();
  nlohmann::json plans = nlohmann::json::array();
  for (const auto& r : results) {
    loads.push_back(r.load_factor);
    plans.push_back(plan_to_json(r));
  }
  nlohmann::json by_model = nlohmann::json::array();
  if (!results.empty()) {
    for (std::size_t m = 0; m < results[0].models.size(); ++m) {
      nlohmann::json gpus = nlohmann::json::array();
      for (const auto& r : results) {
        const auto& model = r.models[m];
        gpus.push_back(model.met ? nlohmann::json(model.answer->gpus) : nlohmann::json(nullptr));
      }
      by_model.push_back({{"model", results[0].models[m].model}, {"gpus", gpus}});
    }
  }
  bool all = true;
  for (const auto& r : results) all = all && r.all_met();
  return {{"loads", loads}, {"all_met", all}, {"gpus_by_load", by_model}, {"plans", plans}};
}

void print_load_table(const std::vector<PlanResult>& results, std::ostream& out) {
  if (results.empty()) return;
  out << "GPUs by load (arrival rate x factor; the placement that answered)\n";
  out << std::left << std::setw(15) << "model" << std::right;
  for (const auto& r : results) out << std::setw(20) << "x" + fixed(r.load_factor, 2);
  out << "\n";
  for (std::size_t m = 0; m < results[0].models.size(); ++m) {
    out << std::left << std::setw(15) << results[0].models[m].model << std::right;
    for (const auto& r : results) {
      const auto& model = r.models[m];
      out << std::setw(20)
          << (model.met ? std::to_string(model.answer->gpus) + " (" + model.placement + ")"
                        : std::string("not met"));
    }
    out << "\n";
  }
}

}  // namespace gpumux
