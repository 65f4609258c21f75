#include "analysis/plan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
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
  // Overrides address keys of objects; another shape is left for parse_scenario to report.
  if (base.document.is_object()) {
    for (const auto& a : request.sets) apply_override(base.document, a);
  }
  if (base.document.is_object() && request.seed) base.document["seed"] = *request.seed;
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

}  // namespace gpumux
