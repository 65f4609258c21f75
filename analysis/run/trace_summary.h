// summary.json's `trace` object: what the run read (rows, skipped rows by reason, the defaults
// it used, the list's notes) and what each transform that ran did (filtered_out, resample,
// inflation, workloads). Keys of a transform the scenario does not turn on are left out, so a
// run without it keeps its summary as before.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/run/colocation_tally.h"
#include "analysis/run/trace_pipeline.h"
#include "scenarios/scenario.h"
#include "sim/engine/engine.h"

namespace gpumux {

// `colocation`: the jobs that ran at measured pair speeds, or null when the run did not count
// them (no catalogue, or a model that uses no pair speeds). Precondition: the run has ended.
nlohmann::json trace_summary_json(const Scenario& scenario, const TracePipeline& pipeline,
                                  const EngineStats& engine, const ColocationCounts* colocation);

}  // namespace gpumux
