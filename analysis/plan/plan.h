// Capacity planning (`gpumux plan`): for each sharing model, the smallest cluster that meets
// every objective (analysis/plan/objective.h), found by running the scenario in-process at several
// sizes, writing nothing to disk.
//
// Sizes. The scenario's node groups scale together: with g the greatest common divisor of the
// groups' node counts, group i's unit is nodes_i / g nodes, and size k gives every group
// k x its unit (so the groups keep their ratio and each has at least one node; the scenario's
// own cluster is size g). One group of any size: size k = k nodes. Groups of 4 and 2 nodes:
// size k = 2k + k nodes. --max-nodes bounds the total nodes, hence the largest size. A
// scenario with a nodes CSV cannot be scaled (InputError).
//
// Search, per model: bracket by doubling (sizes 1, 2, 4, ... capped at the largest size) until
// a size meets the objectives, then bisect between the last size that failed and the first
// that met. The answer is the smallest size found to meet them whose next-smaller size was run
// and failed: one size below the answer is always run and reported, and should it meet the
// objectives too, the search goes on downwards (reported as `searched_down`). Sizes between
// probes are not run: the planner trusts the boundary it found, not the whole curve.
//
// Placements: the placement policy is an assumption the planner searches, not one it inherits.
// Each model is searched under every policy of PlanRequest::placements (default: the
// scenario's own and `spread`, which shares a GPU only when no node has an idle one that fits);
// the model's answer is the smallest size over the policies. A policy's search stops once it
// can no longer beat an answer another policy has found (reported as such): the first policy to
// finish its search wins a tie.
//
// Layouts (analysis/plan/mig_layouts.h): a MIG model (mig and its hybrids) is searched under
// each candidate layout of PlanRequest::mig_layouts as it is under each placement: every
// (layout, placement) pair is a search of its own, the answer is the smallest size over them, the
// first pair in order (layouts as listed, the scenario's first; then placements) winning a tie.
// The answer's params are its layout's, so that what is deployed is what was sized.
//
// Incurable rejections (analysis/plan/incurable_rejections.h): when a probe rejects jobs for a
// reason that holds at every size (in too many seeds for the rest to meet the objectives), its
// search stops there, not met, with the reason and counts.
//
// Seeds: with --seeds N every probe runs the scenario under N seeds (the scenario's seed, +1,
// ...); a size meets the objectives when at least ceil(share x N) seeds meet them all.
//
// Objectives relative to the exclusive answer (objective.h, e.g. the JCT guard): exclusive is
// searched first, alone, and its answer's values become the other models' bounds, seed by
// seed (each seed's run is held to exclusive's run with the same seed); exclusive itself is
// the baseline and meets them by definition.
//
// Curve: sizes asked for with PlanRequest::curve are run for every model and placement before
// the search, which then reuses them; plan.json keeps every probe's objective values.
//
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/plan/mig_layouts.h"
#include "analysis/plan/objective.h"
#include "analysis/run/model_choice.h"
#include "analysis/run/rejection_tally.h"
#include "analysis/run/trace_cache.h"
#include "sim/core/device.h"

namespace gpumux {

using PlanModel = ModelRequest;  // params chosen by choose_model_params (model_choice.h)

struct PlanRequest {
  std::string scenario_file;
  std::vector<std::string> sets;  // --set overrides, applied before anything else
  std::optional<std::uint64_t> seed;
  std::vector<PlanModel> models;
  std::vector<Objective> objectives;    // plan_objectives(): user's, then the implicit ones
  int threads = 1;                      // >= 1
  int max_nodes = 256;                  // >= 1: total nodes of the largest size
  std::vector<std::string> placements;  // policies searched; empty: the scenario's and spread
  int seeds = 1;                        // >= 1: seeds per probe
  double seed_share = 1.0;              // in (0, 1]: share of seeds that must meet
  int curve_from_nodes = 0;             // with curve_to_nodes > 0: every size whose total
  int curve_to_nodes = 0;               // nodes lie in [from, to] is run
  double load_factor = 1.0;             // > 0: trace.load_factor for every run (1: as read)
  double price_per_gpu_hour = 0.0;      // >= 0; 0: no cost in money
  // Every run reads the trace through this cache (analysis/run/trace_cache.h), so that a plan
  // reads each trace once, whatever the seeds; several plans of one command (loads, sensitivity
  // ends) may share it. Null: run_plan makes its own.
  std::shared_ptr<TraceCache> trace_cache;
  // Each run reads the trace file itself, bypassing the cache: slower, the same answers (tests
  // compare the two).
  bool read_trace_per_run = false;
  MigLayoutRequest mig_layouts;  // the layouts searched for MIG models
};

// One seed's run of one probe.
struct PlanSeedRun {
  std::uint64_t seed = 0;
  bool met = false;                        // every objective met
  std::vector<ObjectiveCheck> checks;      // one per objective
  nlohmann::json metrics;                  // summary.json's `metrics`
  nlohmann::json defaults_used;            // summary.json's `trace.defaults_used` (null: generated)
  std::vector<RejectionCount> rejections;  // the jobs rejected, by reason
};

// The runs of the scenario at one size under one placement, one per seed.
struct PlanProbe {
  int size = 0;
  int nodes = 0;
  int gpus = 0;
  bool met = false;  // at least the required number of seeds met every objective
  int seeds_met = 0;
  // Per objective (same order as PlanResult::objectives): the check of the tightest seed
  // among those the rule counts (with every seed required: the worst seed's).
  std::vector<ObjectiveCheck> checks;
  nlohmann::json metrics;  // the metrics of the tightest seed (the table's columns)
  std::uint64_t metrics_seed = 0;
  std::vector<RejectionCount> rejected_by_reason;  // the tightest seed's
  std::vector<PlanSeedRun> runs;                   // one per seed, in seed order
  double gpu_hours = 0.0;  // the cluster's GPUs x the tightest seed's makespan, hours
};

// One model under one placement policy and one layout: its own search.
struct PlanPlacementResult {
  std::string placement;
  std::string layout;         // the layout in words ("" for a model without layouts)
  std::string layout_origin;  // "scenario", "generated", "--mig-layouts" ("" without layouts)
  // Not "": the search stopped at its first failing probe, whose rejections no size cures, and
  // this says why (incurable_text).
  std::string incurable;
  bool met = false;
  int answer_nodes = 0;  // 0 when not met
  // > 0: the search stopped short, no size below this (another placement's answer) met.
  int stopped_at_nodes = 0;
  bool searched_down = false;
  std::vector<PlanProbe> probes;  // every size run, in size order
};

// The model, its params and their source (ModelChoice), and the search's outcome: the fields
// below `placement` are those of the placement that answered (when none did, the first's).
struct PlanModelResult : ModelChoice {
  bool met = false;                    // some size within --max-nodes meets the objectives
  std::string placement;               // the policy of the answer
  std::optional<PlanProbe> answer;     // the smallest size found to meet them
  std::optional<PlanProbe> one_below;  // answer - 1 (absent when the answer is size 1)
  std::optional<PlanProbe> largest;    // when !met: the largest size run
  bool searched_down = false;          // a size below an earlier answer also met the objectives
  std::vector<PlanProbe> probes;       // every size run under `placement`, in size order
  std::vector<PlanPlacementResult> placements;  // every layout x policy searched, in order
  // The layout of `placement`'s search (its params are `params`); "" for a model without layouts.
  std::string layout;
  std::string layout_origin;
  nlohmann::json layout_by_device;  // LayoutCapacity::by_device of that layout
  int layouts_searched = 1;         // candidate layouts
  std::string incurable;            // when !met and that search stopped for incurable rejections
};

struct PlanResult {
  std::string scenario_name;
  std::string scenario_file;
  std::uint64_t seed = 0;
  std::string scheduler;  // "queue + placement"
  std::string trace;      // the trace file or "synthetic generator"
  std::vector<Objective> objectives;
  nlohmann::json unit;                 // [{group, nodes, gpus_per_node, device}]: one size step
  std::vector<DeviceProfile> devices;  // the profiles of the groups' devices
  int unit_nodes = 0;
  int unit_gpus = 0;
  int max_size = 0;
  int max_nodes = 0;
  std::size_t runs = 0;  // scenario runs (probes x seeds)
  std::vector<std::string> placements;
  std::vector<std::uint64_t> seeds;
  int seeds_required = 1;  // of seeds.size()
  double load_factor = 1.0;
  double price_per_gpu_hour = 0.0;
  std::vector<PlanModelResult> models;  // in the order asked
  // Per objective, per seed (same order as `seeds`): for one relative to the exclusive answer,
  // the metric's value in exclusive's run at its answer with that seed (NaN when exclusive met
  // the objectives at no size); NaN for the others.
  std::vector<std::vector<double>> baselines;
  std::vector<std::string> notes;  // what the planner changed or could not do, in words
  // The trace fields filled from defaults, as the first run reported them ({field: {rows,
  // value, source}}; summary.json's trace.defaults_used, null for a generated trace): every
  // answer rests on them.
  nlohmann::json defaulted_fields;
  // The build and the input files of every model's scenario (analysis/run/provenance.h).
  nlohmann::json provenance;

  bool all_met() const;
};

// Runs the search. Throws InputError for a bad scenario, model, parameters or objective (before
// any run where it can; a request objective on a scenario without services after the first).
PlanResult run_plan(const PlanRequest& request, std::ostream* progress);

}  // namespace gpumux
