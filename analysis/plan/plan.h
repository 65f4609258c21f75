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
// Objectives relative to the exclusive answer (objective.h, e.g. the JCT guard): exclusive is
// searched first, alone, and its answer's values become the other models' bounds; exclusive
// itself is the baseline and meets them by definition.
//
// Determinism: the runs of each round (one probe per unfinished model) are fixed by the
// results of earlier rounds alone; threads only run a round's probes concurrently and results
// are applied in model order, so the answer, the table and the JSON do not depend on the thread
// count or on timing. Progress lines (stderr) are printed between rounds.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/plan/objective.h"
#include "analysis/run/model_choice.h"

namespace gpumux {

using PlanModel = ModelRequest;  // params chosen by choose_model_params (model_choice.h)

struct PlanRequest {
  std::string scenario_file;
  std::vector<std::string> sets;  // --set overrides, applied before anything else
  std::optional<std::uint64_t> seed;
  std::vector<PlanModel> models;
  std::vector<Objective> objectives;  // plan_objectives(): user's, then the implicit ones
  int threads = 1;                    // >= 1
  int max_nodes = 256;                // >= 1: total nodes of the largest size
};

// One run of the scenario at one size.
struct PlanProbe {
  int size = 0;
  int nodes = 0;
  int gpus = 0;
  bool met = false;
  std::vector<ObjectiveCheck> checks;  // one per PlanRequest::objectives, same order
  nlohmann::json metrics;              // summary.json's `metrics`
};

// The model, its params and their source (ModelChoice), and the search's outcome.
struct PlanModelResult : ModelChoice {
  bool met = false;                    // some size within --max-nodes meets the objectives
  std::optional<PlanProbe> answer;     // the smallest size found to meet them
  std::optional<PlanProbe> one_below;  // answer - 1 (absent when the answer is size 1)
  std::optional<PlanProbe> largest;    // when !met: the largest size run
  bool searched_down = false;          // a size below an earlier answer also met the objectives
  std::vector<PlanProbe> probes;       // every size run for this model, in size order
};

struct PlanResult {
  std::string scenario_name;
  std::string scenario_file;
  std::uint64_t seed = 0;
  std::string scheduler;  // "queue + placement"
  std::string trace;      // the trace file or "synthetic generator"
  std::vector<Objective> objectives;
  nlohmann::json unit;  // [{group, nodes, gpus_per_node, device}]: one size step
  int unit_nodes = 0;
  int unit_gpus = 0;
  int max_size = 0;
  int max_nodes = 0;
  std::size_t runs = 0;
  std::vector<PlanModelResult> models;  // in the order asked
  // Per objective: for one relative to the exclusive answer, the metric's value there (NaN
  // when exclusive met the objectives at no size); NaN for the others.
  std::vector<double> baselines;
  std::vector<std::string> notes;  // what the planner changed or could not do, in words

  bool all_met() const;
};

// Runs the search. Throws InputError for a bad scenario, model, parameters or objective (before
// any run where it can; a request objective on a scenario without services after the first).
PlanResult run_plan(const PlanRequest& request, std::ostream* progress);

}  // namespace gpumux
