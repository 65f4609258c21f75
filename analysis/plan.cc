#include "analysis/plan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <iomanip>
#include <map>
#include <numeric>
#include <sstream>
#include <thread>

#include "analysis/run.h"
#include "analysis/size_search.h"
#include "models/sharing_registry.h"
#include "scenarios/scenario.h"
#include "sim/input_error.h"
#include "sim/json_fields.h"

namespace gpumux {

namespace {

namespace fs = std::filesystem;

std::string fixed(double x, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << x;
  return o.str();
}

// The scenario document with the overrides applied, and how one size step maps to nodes.
struct PlanBase {
  nlohmann::json document;
  std::string file;
  std::string base_dir;
  std::vector<int> unit;  // nodes of each node group per size step
};

nlohmann::json sized_document(const PlanBase& base, const std::string& model,
                              const nlohmann::json& params, int size) {
  nlohmann::json doc = base.document;
  doc["sharing"] = {{"model", model}, {"params", params}};
  auto& groups = doc["cluster"]["node_groups"];
  for (std::size_t i = 0; i < base.unit.size(); ++i) groups[i]["nodes"] = size * base.unit[i];
  return doc;
}

// Chooses the model's parameters (README "Capacity planning"): --model-params, else the
// scenario's when its model is this one, else the model's defaults, else (for a model that has
// no defaults, such as mig) the example `gpumux models` gives. Validates them by parsing the
// scenario at its own size.
PlanModelResult resolve_model(const PlanBase& base, const PlanModel& m, int own_size) {
  PlanModelResult r;
  r.model = m.name;
  const SharingModelInfo* info = nullptr;
  const auto all = sharing_models();
  std::string valid;
  for (const auto& candidate : all) {
    if (candidate.name == m.name) info = &candidate;
    valid += (valid.empty() ? "" : ", ") + candidate.name;
  }
  if (!info) {
    throw InputError("--models", m.name,
                     "unknown sharing model '" + m.name + "' (valid: " + valid + ")");
  }
  const nlohmann::json& doc = base.document;
  const std::string scenario_model =
      doc.contains("sharing") && doc["sharing"].is_object() && doc["sharing"].contains("model")
          ? doc["sharing"]["model"].get<std::string>()
          : "exclusive";
  auto parse_with = [&](const nlohmann::json& params) {
    return parse_scenario(sized_document(base, m.name, params, own_size), base.file, base.base_dir);
  };
  std::optional<Scenario> parsed;
  if (m.params) {
    r.params = *m.params;
    r.params_source = "--model-params";
    try {
      parsed = parse_with(r.params);
    } catch (const InputError& e) {
      // The pointer in the message is where the params land in the scenario; name the option.
      throw InputError("--model-params " + m.name, "", e.what());
    }
  } else if (scenario_model == m.name) {
    r.params =
        doc["sharing"].contains("params") ? doc["sharing"]["params"] : nlohmann::json::object();
    r.params_source = "the scenario's sharing.params (its model is " + m.name + ")";
    parsed = parse_with(r.params);
  } else {
    r.params = nlohmann::json::object();
    r.params_source = "the model's defaults (the scenario's model is " + scenario_model + ")";
    try {
      parsed = parse_with(r.params);
    } catch (const InputError& e) {
      if (info->example_params == "{}") throw;
      r.params = nlohmann::json::parse(info->example_params);
      r.params_source = "the example of `gpumux models` (the model has no defaults)";
      try {
        parsed = parse_with(r.params);
      } catch (const InputError&) {
        throw InputError("--models", m.name,
                         std::string("needs parameters for this cluster; give them with "
                                     "--model-params ") +
                             m.name + "='{...}' (" + e.what() + ")");
      }
    }
  }
  r.parameters = parsed->resolved["sharing"]["parameters"];
  return r;
}

// One model's search and the probes it ran, by size.
struct ModelSearch {
  explicit ModelSearch(int max_size) : sizes(max_size) {}
  SizeSearch sizes;
  std::map<int, PlanProbe> probes;
};

struct Task {
  std::size_t model = 0;
  int size = 0;
};

PlanProbe run_probe(const PlanBase& base, const PlanModelResult& model,
                    const std::vector<Objective>& objectives, int size) {
  const Scenario s = parse_scenario(sized_document(base, model.model, model.params, size),
                                    base.file, base.base_dir);
  RunOptions options;
  options.write_outputs = false;
  const RunReport report = run_scenario(s, options);
  PlanProbe p;
  p.size = size;
  p.nodes = static_cast<int>(s.nodes.size());
  p.gpus = static_cast<int>(s.gpu_count());
  p.met = true;
  for (const auto& o : objectives) {
    p.checks.push_back(check_objective(o, report.summary));
    p.met = p.met && p.checks.back().met;
  }
  p.metrics = report.summary["metrics"];
  return p;
}

// Runs the tasks on up to `threads` threads; results in task order. The first failure in task
// order is rethrown, so which error is reported does not depend on timing either.
std::vector<PlanProbe> run_round(const PlanBase& base, const std::vector<PlanModelResult>& models,
                                 const std::vector<Objective>& objectives,
                                 const std::vector<Task>& tasks, int threads) {
  std::vector<PlanProbe> results(tasks.size());
  std::vector<std::exception_ptr> errors(tasks.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < tasks.size();) {
      try {
        results[i] = run_probe(base, models[tasks[i].model], objectives, tasks[i].size);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t helpers =
      std::min(tasks.size(), static_cast<std::size_t>(std::max(1, threads))) - 1;
  std::vector<std::thread> pool;
  for (std::size_t i = 0; i < helpers; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return results;
}

PlanBase load_base(const PlanRequest& request, PlanResult& result, int& own_size) {
  PlanBase base;
  base.file = request.scenario_file;
  base.base_dir = fs::path(request.scenario_file).parent_path().string();
  base.document = read_json_file(request.scenario_file);
  for (const auto& a : request.sets) apply_override(base.document, a);
  if (request.seed) base.document["seed"] = *request.seed;
  // The scenario as written must be valid before it is scaled.
  const Scenario own = parse_scenario(base.document, base.file, base.base_dir);
  const auto& cluster = base.document["cluster"];
  if (!cluster.contains("node_groups")) {
    throw InputError(base.file + "#/cluster", "node_groups",
                     "gpumux plan scales the cluster's node groups; this scenario lists its "
                     "nodes in a CSV (write them as node_groups to plan)");
  }
  std::vector<int> nodes;
  for (const auto& g : cluster["node_groups"]) nodes.push_back(g["nodes"].get<int>());
  int g = 0;
  for (int n : nodes) g = std::gcd(g, n);
  own_size = g;
  result.scenario_name = own.name;
  result.scenario_file = own.file;
  result.seed = own.seed;
  result.scheduler = own.resolved["scheduler"]["queue"].get<std::string>() + " + " + own.placement;
  result.trace = own.trace.generated ? "synthetic generator" : own.trace.path;
  result.unit = nlohmann::json::array();
  const auto& groups = own.resolved["cluster"]["node_groups"];
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    base.unit.push_back(nodes[i] / g);
    const int per_node = groups[i]["gpus_per_node"].get<int>();
    result.unit.push_back({{"group", groups[i]["name"]},
                           {"nodes", base.unit.back()},
                           {"gpus_per_node", per_node},
                           {"device", groups[i]["device"]}});
    result.unit_nodes += base.unit.back();
    result.unit_gpus += base.unit.back() * per_node;
  }
  result.max_nodes = request.max_nodes;
  result.max_size = request.max_nodes / result.unit_nodes;
  if (result.max_size < 1) {
    throw InputError("--max-nodes " + std::to_string(request.max_nodes), "max-nodes",
                     "smaller than one size step of this cluster (" +
                         std::to_string(result.unit_nodes) + " nodes)");
  }
  return base;
}

}  // namespace

bool PlanResult::all_met() const {
  return std::all_of(models.begin(), models.end(), [](const auto& m) { return m.met; });
}

PlanResult run_plan(const PlanRequest& request, std::ostream* progress) {
  const auto wall_start = std::chrono::steady_clock::now();
  PlanResult result;
  result.objectives = request.objectives;
  int own_size = 1;
  const PlanBase base = load_base(request, result, own_size);
  for (std::size_t i = 0; i < request.models.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (request.models[j].name == request.models[i].name) {
        throw InputError("--models", request.models[i].name, "listed twice");
      }
    }
    result.models.push_back(resolve_model(base, request.models[i], own_size));
  }
  std::vector<ModelSearch> searches(result.models.size(), ModelSearch(result.max_size));
  for (int round = 1;; ++round) {
    std::vector<Task> tasks;
    for (std::size_t m = 0; m < searches.size(); ++m) {
      if (auto size = searches[m].sizes.next()) tasks.push_back({m, *size});
    }
    if (tasks.empty()) break;
    if (progress) {
      *progress << "[gpumux plan] round " << round << ":";
      for (const auto& t : tasks) {
        *progress << " " << result.models[t.model].model << "@" << t.size * result.unit_nodes
                  << (t.size * result.unit_nodes == 1 ? " node" : " nodes");
      }
      *progress << "\n" << std::flush;
    }
    auto probes = run_round(base, result.models, request.objectives, tasks, request.threads);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      ModelSearch& search = searches[tasks[i].model];
      search.sizes.record(tasks[i].size, probes[i].met);
      search.probes[tasks[i].size] = std::move(probes[i]);
    }
    result.runs += tasks.size();
    if (progress) {
      std::size_t left = 0;
      for (auto& search : searches) left += search.sizes.remaining_runs();
      *progress << "[gpumux plan] " << result.runs << " / at most " << result.runs + left
                << " runs done\n"
                << std::flush;
    }
  }
  for (std::size_t m = 0; m < searches.size(); ++m) {
    ModelSearch& search = searches[m];
    PlanModelResult& r = result.models[m];
    const int answer = search.sizes.answer();
    r.met = answer > 0;
    r.searched_down = search.sizes.searched_down();
    if (r.met) {
      r.answer = search.probes.at(answer);
      if (answer > 1) r.one_below = search.probes.at(answer - 1);
    } else {
      r.largest = search.probes.rbegin()->second;
    }
    for (auto& [size, probe] : search.probes) r.probes.push_back(std::move(probe));
  }
  if (progress) {
    *progress
        << "[gpumux plan] " << result.runs << " runs in "
        << fixed(
               std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count(),
               2)
        << " s wall time (" << request.threads
        << (request.threads == 1 ? " thread)\n" : " threads)\n");
  }
  return result;
}

namespace {

const PlanModelResult* exclusive_of(const PlanResult& r) {
  for (const auto& m : r.models) {
    if (m.model == "exclusive" && m.met) return &m;
  }
  return nullptr;
}

std::string nodes_text(int n) { return std::to_string(n) + (n == 1 ? " node" : " nodes"); }

std::string check_text(const Objective& o, const ObjectiveCheck& c) {
  const bool count = o.metric == "rejected_jobs" || o.metric == "unfinished_jobs";
  const bool share = o.metric.find("share") != std::string::npos || o.metric == "slo_attainment";
  const std::string value =
      count ? std::to_string(static_cast<long long>(c.value)) : fixed(c.value, share ? 4 : 1);
  return o.metric + " " + value + (c.met ? " ok" : " FAIL");
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
  for (const auto& o : r.objectives) {
    objectives.push_back({{"objective", o.text()},
                          {"metric", o.metric},
                          {"bound", o.bound == Bound::kAtMost ? "<=" : ">="},
                          {"limit", o.limit},
                          {"implicit", o.implicit}});
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
          {"models", models}};
}

void print_plan_table(const PlanResult& r, std::ostream& out) {
  out << "gpumux plan  scenario '" << r.scenario_name << "' (" << r.scenario_file << ")  seed "
      << r.seed << "\n";
  out << "objectives  ";
  for (std::size_t i = 0; i < r.objectives.size(); ++i) {
    out << (i ? ", " : "") << r.objectives[i].text()
        << (r.objectives[i].implicit ? " (always)" : "");
  }
  out << "\n\n";
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
        << std::setw(8) << fixed(100 * x["gpu_allocation_ratio"].get<double>(), 1) + "%"
        << std::setw(9) << fixed(100 * x["sm_busy_utilization"].get<double>(), 1) + "%"
        << std::setw(12) << fixed(x["queueing_delay_s"]["p95"].get<double>(), 1) << std::setw(11)
        << fixed(x["jct_s"]["p95"].get<double>(), 1);
    if (requests) {
      const bool has = x.contains("requests");
      out << std::setw(13)
          << (has ? fixed(x["requests"]["latency_ms"]["p95"].get<double>(), 1) : "-")
          << std::setw(8) << (has ? fixed(x["requests"]["slo_attainment"].get<double>(), 4) : "-");
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
      out << "             " << p["name"].get<std::string>() << " = " << p["value"].dump() << " "
          << p["unit"].get<std::string>() << "  (" << p["source"].get<std::string>() << ")\n";
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
