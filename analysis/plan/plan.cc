#include "analysis/plan/plan.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>

#include "analysis/plan/size_search.h"
#include "analysis/run/run.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/base/parallel_tasks.h"

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
  nlohmann::json doc = with_sharing(base.document, model, params);
  auto& groups = doc["cluster"]["node_groups"];
  for (std::size_t i = 0; i < base.unit.size(); ++i) groups[i]["nodes"] = size * base.unit[i];
  return doc;
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
                    const std::vector<Objective>& objectives, const std::vector<double>& baselines,
                    int size) {
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
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    const Objective& o = objectives[i];
    if (o.relative_to_exclusive && model.model == "exclusive") {
      // The baseline itself: its value is reported, the bound is its own.
      p.checks.push_back({objective_value(o, report.summary), true, std::nan("")});
    } else {
      p.checks.push_back(check_objective(o, report.summary, baselines[i]));
    }
    p.met = p.met && p.checks.back().met;
  }
  p.metrics = report.summary["metrics"];
  return p;
}

// Runs the tasks on up to `threads` threads; results in task order (parallel_tasks.h).
std::vector<PlanProbe> run_round(const PlanBase& base, const std::vector<PlanModelResult>& models,
                                 const std::vector<Objective>& objectives,
                                 const std::vector<double>& baselines,
                                 const std::vector<Task>& tasks, int threads) {
  std::vector<PlanProbe> results(tasks.size());
  run_indexed(tasks.size(), threads, [&](std::size_t i) {
    results[i] = run_probe(base, models[tasks[i].model], objectives, baselines, tasks[i].size);
  });
  return results;
}

PlanBase load_base(const PlanRequest& request, PlanResult& result) {
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

// Relative objectives need exclusive's answer: a user's is refused without exclusive among the
// models; the JCT guard is dropped, with a note.
void apply_baseline_rules(PlanResult& result) {
  const bool exclusive =
      std::any_of(result.models.begin(), result.models.end(),
                  [](const PlanModelResult& m) { return m.model == "exclusive"; });
  if (exclusive) return;
  std::vector<Objective> kept;
  for (const Objective& o : result.objectives) {
    if (!o.relative_to_exclusive) {
      kept.push_back(o);
    } else if (!o.implicit) {
      throw InputError("--objective " + o.text(), o.metric,
                       "is relative to the exclusive answer: add exclusive to --models");
    } else {
      result.notes.push_back("JCT guard " + o.text() +
                             " not applied: exclusive is not among --models, so no answer here "
                             "is checked against slowdown (add exclusive, or bound jct_s.p95)");
    }
  }
  result.objectives = std::move(kept);
}

// The relative objectives' baselines: their metrics in exclusive's answer (`answer` 0: none).
void set_baselines(PlanResult& result, int answer, const std::map<int, PlanProbe>& probes) {
  if (answer == 0) {
    result.notes.push_back(
        "exclusive met the objectives at no size: the objectives relative to it cannot be met");
    return;
  }
  const nlohmann::json summary = {{"metrics", probes.at(answer).metrics}};
  for (std::size_t i = 0; i < result.objectives.size(); ++i) {
    if (result.objectives[i].relative_to_exclusive) {
      result.baselines[i] = objective_value(result.objectives[i], summary);
    }
  }
}

}  // namespace

bool PlanResult::all_met() const {
  return std::all_of(models.begin(), models.end(), [](const auto& m) { return m.met; });
}

PlanResult run_plan(const PlanRequest& request, std::ostream* progress) {
  const auto wall_start = std::chrono::steady_clock::now();
  PlanResult result;
  result.objectives = request.objectives;
  const PlanBase base = load_base(request, result);
  reject_repeated_models(request.models);
  for (const auto& m : request.models) {
    // The scenario's own size is its own cluster: the params are checked against it.
    PlanModelResult r;
    static_cast<ModelChoice&>(r) = choose_model_params(base.document, base.file, base.base_dir, m);
    result.models.push_back(std::move(r));
  }
  apply_baseline_rules(result);
  result.baselines.assign(result.objectives.size(), std::nan(""));
  std::optional<std::size_t> exclusive;
  for (std::size_t m = 0; m < result.models.size(); ++m) {
    if (result.models[m].model == "exclusive") exclusive = m;
  }
  const bool relative = std::any_of(result.objectives.begin(), result.objectives.end(),
                                    [](const Objective& o) { return o.relative_to_exclusive; });
  // Relative objectives: exclusive is searched alone first; its answer sets the bounds.
  bool baseline_ready = !(relative && exclusive);
  std::vector<ModelSearch> searches(result.models.size(), ModelSearch(result.max_size));
  for (int round = 1;; ++round) {
    std::vector<Task> tasks;
    for (std::size_t m = 0; m < searches.size(); ++m) {
      if (!baseline_ready && m != *exclusive) continue;
      if (auto size = searches[m].sizes.next()) tasks.push_back({m, *size});
    }
    if (tasks.empty() && !baseline_ready) {
      set_baselines(result, searches[*exclusive].sizes.answer(), searches[*exclusive].probes);
      baseline_ready = true;
      --round;
      continue;
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
    auto probes =
        run_round(base, result.models, result.objectives, result.baselines, tasks, request.threads);
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
