#include "analysis/plan/plan_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/plan/incurable_rejections.h"
#include "analysis/plan/plan_answers.h"
#include "models/registry.h"

namespace gpumux {

namespace {

// A JSON number, or null for NaN (nlohmann writes NaN as null too; this says so on purpose).
nlohmann::json number_or_null(double x) {
  return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x);
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
  const PlanModelResult* exclusive = met_baseline(r);
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

}  // namespace gpumux
