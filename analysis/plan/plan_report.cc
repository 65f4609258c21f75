#include "analysis/plan/plan_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "analysis/metrics/metric_catalogue.h"
#include "analysis/output/number_text.h"
#include "analysis/plan/incurable_rejections.h"
#include "analysis/plan/plan_answers.h"
#include "models/registry.h"
#include "sim/base/terminal_text.h"

namespace gpumux {

namespace {

std::string fixed(double x, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << x;
  return o.str();
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

}  // namespace

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
  const PlanModelResult* exclusive = met_baseline(r);
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
