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

#include "analysis/plan/incurable_rejections.h"
#include "analysis/plan/size_search.h"
#include "analysis/run/provenance.h"
#include "analysis/run/run.h"
#include "models/registry.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/base/parallel_tasks.h"
#include "sim/placement/registry.h"

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
  int own_size = 0;       // the scenario's own cluster, in size steps
  std::size_t own_gpus = 0;
  bool inflation = false;
  double load_factor = 1.0;
  std::vector<PlanDevice> groups;           // each node group's device and GPUs per node
  std::shared_ptr<TraceCache> trace_cache;  // null: each run reads the trace itself
};

nlohmann::json sized_document(const PlanBase& base, const std::string& model,
                              const nlohmann::json& params, const std::string& placement, int size,
                              std::uint64_t seed) {
  nlohmann::json doc = with_sharing(base.document, model, params);
  auto& groups = doc["cluster"]["node_groups"];
  for (std::size_t i = 0; i < base.unit.size(); ++i) groups[i]["nodes"] = size * base.unit[i];
  doc["scheduler"]["placement"] = placement;
  doc["seed"] = seed;
  // Inflation's load stays a share of the scenario's own cluster, whatever size is probed:
  // otherwise a larger cluster would get a larger trace and no size would ever catch up.
  if (base.inflation) doc["trace"]["inflation"]["cluster_gpus"] = base.own_gpus;
  if (base.load_factor != 1.0) doc["trace"]["load_factor"] = base.load_factor;
  return doc;
}

// One model under one layout and one placement: its search and the probes it ran, by size.
struct Unit {
  Unit(std::size_t model_index, std::size_t layout_index, std::string placement_name, int max_size)
      : model(model_index),
        layout(layout_index),
        placement(std::move(placement_name)),
        sizes(max_size) {}
  std::size_t model = 0;
  std::size_t layout = 0;  // index into the model's candidate layouts
  std::string placement;
  std::string incurable;  // the search stopped: rejections no size cures (incurable_text)
  SizeSearch sizes;
  std::map<int, PlanProbe> probes;
  bool curve_done = false;
  int stopped_at = 0;  // the search stopped: another placement answered at this size
};

struct Task {
  std::size_t unit = 0;
  int size = 0;
};

PlanSeedRun run_seed(const PlanBase& base, const PlanModelResult& model,
                     const nlohmann::json& params, const std::string& placement,
                     const std::vector<Objective>& objectives,
                     const std::vector<std::vector<double>>& baselines, int size,
                     std::size_t seed_index, std::uint64_t seed) {
  const Scenario s = parse_scenario(
      sized_document(base, model.model, params, placement, size, seed), base.file, base.base_dir);
  RunOptions options;
  options.write_outputs = false;
  options.trace_cache = base.trace_cache.get();
  const RunReport report = run_scenario(s, options);
  PlanSeedRun run;
  run.seed = seed;
  run.met = true;
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    const Objective& o = objectives[i];
    if (o.relative_to_exclusive && capabilities_of(model.model).savings_baseline) {
      // The baseline itself: its value is reported, the bound is its own.
      run.checks.push_back({objective_value(o, report.summary), true, std::nan(""), ""});
    } else {
      run.checks.push_back(check_objective(o, report.summary, baselines[i][seed_index]));
    }
    run.met = run.met && run.checks.back().met;
  }
  run.metrics = report.summary["metrics"];
  const auto& trace = report.summary["trace"];
  if (trace.contains("defaults_used")) run.defaults_used = trace["defaults_used"];
  run.rejections = report.rejected_by_reason;
  return run;
}

// Orders seed runs from the most comfortable to the tightest: fewer failed objectives first,
// then by each objective's value in its bad direction, in objective order.
bool looser(const PlanSeedRun& a, const PlanSeedRun& b, const std::vector<Objective>& objectives) {
  const auto failed = [](const PlanSeedRun& r) {
    return std::count_if(r.checks.begin(), r.checks.end(), [](const auto& c) { return !c.met; });
  };
  const auto fa = failed(a), fb = failed(b);
  if (fa != fb) return fa < fb;
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    const double sign = objectives[i].bound == Bound::kAtMost ? 1.0 : -1.0;
    // NaN (no value) is the tightest.
    const double va = std::isnan(a.checks[i].value) ? INFINITY : sign * a.checks[i].value;
    const double vb = std::isnan(b.checks[i].value) ? INFINITY : sign * b.checks[i].value;
    if (va != vb) return va < vb;
  }
  return a.seed < b.seed;
}

PlanProbe combine_seeds(std::vector<PlanSeedRun> runs, const std::vector<Objective>& objectives,
                        int required, int size, int nodes, int gpus) {
  PlanProbe p;
  p.size = size;
  p.nodes = nodes;
  p.gpus = gpus;
  for (const auto& r : runs) p.seeds_met += r.met ? 1 : 0;
  p.met = p.seeds_met >= required;
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return looser(runs[a], runs[b], objectives); });
  const PlanSeedRun& tightest = runs[order[static_cast<std::size_t>(required - 1)]];
  p.checks = tightest.checks;
  p.metrics = tightest.metrics;
  p.metrics_seed = tightest.seed;
  p.rejected_by_reason = tightest.rejections;
  const auto& makespan = p.metrics["makespan_s"];
  if (makespan.is_number()) p.gpu_hours = p.gpus * makespan.get<double>() / 3600.0;
  p.runs = std::move(runs);
  return p;
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
    const bool pool = cluster.contains("pool");
    throw InputError(base.file + "#/cluster", "node_groups",
                     std::string("gpumux plan scales the cluster's node groups; this scenario ") +
                         (pool ? "pools its GPUs (cluster.pool), which has no nodes to scale "
                                 "(write the cluster as node_groups to plan)"
                               : "lists its nodes in a CSV (write them as node_groups to plan)"));
  }
  std::vector<int> nodes;
  for (const auto& g : cluster["node_groups"]) nodes.push_back(g["nodes"].get<int>());
  int g = 0;
  for (int n : nodes) g = std::gcd(g, n);
  result.scenario_name = own.name;
  result.scenario_file = own.file;
  result.provenance = provenance_json(own);
  result.seed = own.seed;
  result.scheduler = own.resolved["scheduler"]["queue"].get<std::string>() + " queue";
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
    const std::string device = groups[i]["device"].get<std::string>();
    for (const DeviceProfile& d : own.devices) {
      if (d.name == device) base.groups.push_back({d, per_node});
    }
  }
  result.max_nodes = request.max_nodes;
  result.max_size = request.max_nodes / result.unit_nodes;
  if (result.max_size < 1) {
    throw InputError("--max-nodes " + std::to_string(request.max_nodes), "max-nodes",
                     "smaller than one size step of this cluster (" +
                         std::to_string(result.unit_nodes) + " nodes)");
  }
  // The largest size probed must be a cluster a scenario may have: past it the probe's error
  // would blame the scenario's node groups for a size --max-nodes asked for.
  const std::int64_t most_gpus = static_cast<std::int64_t>(result.max_size) * result.unit_gpus;
  if (most_gpus > kMaxClusterGpus) {
    const std::int64_t steps = kMaxClusterGpus / std::max<std::int64_t>(1, result.unit_gpus);
    throw InputError("--max-nodes " + std::to_string(request.max_nodes), "max-nodes",
                     "would try clusters of up to " + std::to_string(most_gpus) +
                         " GPUs, more than the " + std::to_string(kMaxClusterGpus) +
                         " a cluster may have (docs/limits.md): with this cluster's size step (" +
                         std::to_string(result.unit_nodes) + " nodes, " +
                         std::to_string(result.unit_gpus) + " GPUs) give --max-nodes at most " +
                         std::to_string(steps * result.unit_nodes));
  }
  base.own_size = g;
  result.devices = own.devices;
  base.own_gpus = own.gpu_count();
  base.inflation = own.trace.inflation.load > 0;
  if (base.inflation) {
    result.notes.push_back(
        "trace.inflation's load is kept a share of the scenario's own "
        "cluster (" +
        std::to_string(base.own_gpus) +
        " GPUs) at every size, so every size replays the same arrivals");
  }
  if (!(request.load_factor > 0.0)) {
    throw InputError("--load", "load", "a load factor must be > 0");
  }
  base.load_factor = request.load_factor;
  if (!request.read_trace_per_run) {
    base.trace_cache = request.trace_cache ? request.trace_cache : std::make_shared<TraceCache>();
  }
  result.load_factor = request.load_factor;
  result.price_per_gpu_hour = request.price_per_gpu_hour;
  // Placements: the scenario's own first, then spread.
  result.placements = request.placements;
  if (result.placements.empty()) {
    result.placements.emplace_back(own.placement->name);
    if (own.placement->name != "spread") result.placements.push_back("spread");
  }
  for (std::size_t i = 0; i < result.placements.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (result.placements[i] == result.placements[j]) {
        throw InputError("--placements", result.placements[i], "is listed twice");
      }
    }
    // A name given on the command line is the option's fault, not the scenario's placement.
    if (!request.placements.empty() && !placement_policies().find(result.placements[i])) {
      throw InputError("--placements", result.placements[i],
                       placement_policies().unknown_message(result.placements[i]));
    }
  }
  if (request.seeds < 1) throw InputError("--seeds", "seeds", "must be at least 1");
  if (!(request.seed_share > 0.0 && request.seed_share <= 1.0)) {
    throw InputError("--seed-share", "seed-share", "must be in (0, 1]");
  }
  for (int i = 0; i < request.seeds; ++i) result.seeds.push_back(own.seed + i);
  result.seeds_required =
      std::max(1, static_cast<int>(std::ceil(request.seed_share * request.seeds - 1e-9)));
  return base;
}

// Relative objectives need exclusive's answer: a user's is refused without exclusive among the
// models; the JCT guard is dropped, with a note.
void apply_baseline_rules(PlanResult& result) {
  const bool exclusive =
      std::any_of(result.models.begin(), result.models.end(),
                  [](const PlanModelResult& m) {
                    return capabilities_of(m.model).savings_baseline;
                  });
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

// The smallest answer over a model's units (the first listed on a tie); nullptr when none met.
const Unit* answering_unit(const std::vector<Unit>& units, std::size_t model) {
  const Unit* best = nullptr;
  for (const Unit& u : units) {
    if (u.model != model || u.sizes.answer() == 0 || u.stopped_at > 0) continue;
    if (!best || u.sizes.answer() < best->sizes.answer()) best = &u;
  }
  return best;
}

// The relative objectives' baselines: their metrics in exclusive's answer, seed by seed.
void set_baselines(PlanResult& result, const Unit* exclusive) {
  if (!exclusive) {
    result.notes.push_back(
        "exclusive met the objectives at no size: the objectives relative to it cannot be met");
    return;
  }
  const PlanProbe& answer = exclusive->probes.at(exclusive->sizes.answer());
  for (std::size_t i = 0; i < result.objectives.size(); ++i) {
    if (!result.objectives[i].relative_to_exclusive) continue;
    for (std::size_t k = 0; k < answer.runs.size(); ++k) {
      const nlohmann::json summary = {{"metrics", answer.runs[k].metrics}};
      result.baselines[i][k] = objective_value(result.objectives[i], summary);
    }
  }
}

std::string nodes_text(int n) { return std::to_string(n) + (n == 1 ? " node" : " nodes"); }

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
  result.baselines.assign(result.objectives.size(),
                          std::vector<double>(result.seeds.size(), std::nan("")));
  // Every model under every layout and placement, checked at the scenario's own size before any
  // run (an unknown policy, one the model cannot use, or a layout invalid on a device, is refused
  // here, not in the middle).
  const int own_size = base.own_size;
  std::vector<Unit> units;
  std::optional<std::size_t> exclusive;
  std::vector<std::vector<LayoutCandidate>> layouts;    // per model
  std::vector<std::vector<LayoutCapacity>> capacities;  // per model, per layout
  for (std::size_t m = 0; m < result.models.size(); ++m) {
    if (capabilities_of(result.models[m].model).savings_baseline) exclusive = m;
    const auto& model = result.models[m];
    layouts.push_back(mig_layout_candidates(model.model, model.params, base.base_dir, base.groups,
                                            request.mig_layouts));
    capacities.emplace_back();
    for (std::size_t l = 0; l < layouts[m].size(); ++l) {
      capacities[m].push_back(
          layout_capacity(model.model, layouts[m][l].params, base.base_dir, base.groups));
      for (const auto& placement : result.placements) {
        Scenario sized = [&] {
          try {
            return parse_scenario(sized_document(base, model.model, layouts[m][l].params,
                                                 placement, own_size, result.seeds.front()),
                                  base.file, base.base_dir);
          } catch (const InputError& e) {
            // A --placements name the model cannot use (a share-aware policy under exclusive):
            // named as the option, not as the scenario's #/scheduler/placement.
            const std::string text = e.what();
            const std::string blamed = base.file + "#/scheduler/placement: field 'placement': ";
            if (request.placements.empty() || text.rfind(blamed, 0) != 0) throw;
            throw InputError("--placements", placement,
                             "with model '" + model.model + "': " + text.substr(blamed.size()));
          }
        }();
        add_provenance_inputs(result.provenance, sized);
        units.emplace_back(m, l, placement, result.max_size);
      }
    }
  }
  // Curve sizes: every size whose total nodes lie in the asked range.
  std::vector<int> curve;
  if (request.curve_to_nodes > 0) {
    for (int k = 1; k <= result.max_size; ++k) {
      const int n = k * result.unit_nodes;
      if (n >= request.curve_from_nodes && n <= request.curve_to_nodes) curve.push_back(k);
    }
  }
  const bool relative = std::any_of(result.objectives.begin(), result.objectives.end(),
                                    [](const Objective& o) { return o.relative_to_exclusive; });
  // Relative objectives: exclusive is searched alone first; its answer sets the bounds.
  bool baseline_ready = !(relative && exclusive);
  const std::size_t seed_count = result.seeds.size();
  for (int round = 1;; ++round) {
    // A placement's search stops once it can no longer beat another's finished answer: the
    // model's answer is the smallest over them, so the sizes above would change nothing.
    std::vector<int> found(result.models.size(), 0);
    for (Unit& u : units) {
      if (u.stopped_at == 0 && u.sizes.done() && u.sizes.answer() > 0 &&
          (found[u.model] == 0 || u.sizes.answer() < found[u.model])) {
        found[u.model] = u.sizes.answer();
      }
    }
    for (Unit& u : units) {
      const auto size = u.sizes.next();
      if (u.curve_done && size && found[u.model] > 0 && *size >= found[u.model]) {
        u.stopped_at = found[u.model];
      }
    }
    std::vector<Task> tasks;
    for (std::size_t u = 0; u < units.size(); ++u) {
      if (units[u].stopped_at > 0) continue;
      if (!baseline_ready && units[u].model != *exclusive) continue;
      if (!units[u].curve_done) {
        for (int k : curve) tasks.push_back({u, k});
        units[u].curve_done = true;
        if (!curve.empty()) continue;
      }
      if (auto size = units[u].sizes.next()) tasks.push_back({u, *size});
    }
    if (tasks.empty() && !baseline_ready) {
      set_baselines(result, answering_unit(units, *exclusive));
      baseline_ready = true;
      --round;
      continue;
    }
    if (tasks.empty()) break;
    if (progress) {
      *progress << "[gpumux plan] round " << round << ":";
      if (tasks.size() <= 8) {
        for (const auto& t : tasks) {
          const Unit& u = units[t.unit];
          *progress << " " << result.models[u.model].model;
          if (layouts[u.model].size() > 1) *progress << "[layout " << u.layout + 1 << "]";
          *progress << "/" << u.placement << "@" << nodes_text(t.size * result.unit_nodes);
        }
      } else {
        *progress << " " << tasks.size() << " sizes";
      }
      if (seed_count > 1) *progress << " (x " << seed_count << " seeds)";
      *progress << "\n" << std::flush;
    }
    // Every seed of every task at once; results by index, so threads change nothing.
    std::vector<PlanSeedRun> runs(tasks.size() * seed_count);
    run_indexed(runs.size(), request.threads, [&](std::size_t i) {
      const Task& t = tasks[i / seed_count];
      const Unit& unit = units[t.unit];
      runs[i] = run_seed(base, result.models[unit.model], layouts[unit.model][unit.layout].params,
                         unit.placement, result.objectives, result.baselines, t.size,
                         i % seed_count, result.seeds[i % seed_count]);
    });
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      Unit& unit = units[tasks[i].unit];
      std::vector<PlanSeedRun> mine(
          std::make_move_iterator(runs.begin() + static_cast<std::ptrdiff_t>(i * seed_count)),
          std::make_move_iterator(runs.begin() +
                                  static_cast<std::ptrdiff_t>((i + 1) * seed_count)));
      // Size k is k x the step in every group (load_base).
      PlanProbe probe =
          combine_seeds(std::move(mine), result.objectives, result.seeds_required, tasks[i].size,
                        tasks[i].size * result.unit_nodes, tasks[i].size * result.unit_gpus);
      unit.sizes.record(tasks[i].size, probe.met);
      // Rejections no size cures, in more seeds than may fail: no size can meet rejected_jobs<=0
      // (always applied), so the search ends here.
      std::size_t incurable_seeds = 0;
      const PlanSeedRun* first_incurable = nullptr;
      for (const PlanSeedRun& run : probe.runs) {
        if (incurable_jobs(run.rejections) == 0) continue;
        ++incurable_seeds;
        if (!first_incurable) first_incurable = &run;
      }
      if (!probe.met && incurable_seeds > 0 &&
          seed_count - incurable_seeds < static_cast<std::size_t>(result.seeds_required)) {
        unit.sizes.stop();
        unit.incurable =
            incurable_text(first_incurable->rejections, capacities[unit.model][unit.layout]);
      }
      unit.probes[tasks[i].size] = std::move(probe);
    }
    result.runs += runs.size();
    if (progress) {
      std::size_t left = 0;
      for (auto& unit : units) left += unit.sizes.remaining_runs() * seed_count;
      *progress << "[gpumux plan] " << result.runs << " / at most " << result.runs + left
                << " runs done\n"
                << std::flush;
    }
  }
  // The defaulted fields: the same for every run of one seed (the trace does not depend on the
  // cluster); the first run's, for the scenario's seed.
  for (const Unit& u : units) {
    if (!u.probes.empty()) {
      result.defaulted_fields = u.probes.begin()->second.runs.front().defaults_used;
      break;
    }
  }
  for (std::size_t m = 0; m < result.models.size(); ++m) {
    PlanModelResult& r = result.models[m];
    const Unit* answering = answering_unit(units, m);
    const Unit* shown = answering;
    // None met: the first search that ran its course, else the first that stopped for
    // incurable rejections.
    for (const Unit& u : units) {
      if (!shown && u.model == m && u.stopped_at == 0 && u.incurable.empty()) shown = &u;
    }
    for (Unit& u : units) {
      if (u.model != m) continue;
      if (!shown && u.stopped_at == 0) shown = &u;
      PlanPlacementResult p;
      p.placement = u.placement;
      p.layout = layouts[m][u.layout].name;
      p.layout_origin = layouts[m][u.layout].origin;
      p.incurable = u.incurable;
      p.met = u.sizes.answer() > 0 && u.stopped_at == 0;
      p.stopped_at_nodes = u.stopped_at * result.unit_nodes;
      p.answer_nodes = p.met ? u.probes.at(u.sizes.answer()).nodes : 0;
      p.searched_down = u.sizes.searched_down();
      for (const auto& [size, probe] : u.probes) p.probes.push_back(probe);
      r.placements.push_back(std::move(p));
    }
    const int answer = shown->sizes.answer();
    r.placement = shown->placement;
    const LayoutCandidate& layout = layouts[m][shown->layout];
    r.layout = layout.name;
    r.layout_origin = layout.origin;
    r.layout_by_device = capacities[m][shown->layout].by_device;
    r.layouts_searched = static_cast<int>(layouts[m].size());
    r.incurable = shown->incurable;
    if (layout.params != r.params) {
      // What is reported and deployed is what was sized: the layout's params and their echo.
      r.parameters =
          choose_model_params(base.document, base.file, base.base_dir, {r.model, layout.params})
              .parameters;
      r.params = layout.params;
      r.params_source += "; layout " + layout.origin + " by the planner's layout search";
    }
    r.met = answer > 0;
    r.searched_down = shown->sizes.searched_down();
    if (r.met) {
      r.answer = shown->probes.at(answer);
      if (answer > 1) r.one_below = shown->probes.at(answer - 1);
    } else {
      r.largest = shown->probes.rbegin()->second;
    }
    for (const auto& [size, probe] : shown->probes) r.probes.push_back(probe);
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
