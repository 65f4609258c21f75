// What a run with a workload catalogue (trace.catalogue) says about it: summary.json's
// trace.workloads, the sharing parameters that count the jobs with measured MIG speeds and those
// that ran at measured co-location speeds, and the summary table's line. Runs without a
// catalogue have none of these (their outputs are as before).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "analysis/run/colocation_tally.h"
#include "scenarios/scenario.h"
#include "traces/transforms/workload_source.h"

namespace gpumux {

// summary.json's trace.workloads: the catalogue, jobs by how they got a workload, fields the
// catalogue filled, jobs with measured MIG speeds against those left to the model, and
// `colocation_speeds`: the jobs that ran at measured pair speeds against those at the model's
// (`colocation`, from the run's ColocationTally), or "not used" when the model uses none
// (`colocation` null).
nlohmann::json workloads_json(const Scenario& scenario, const WorkloadCounts& counts,
                              const ColocationCounts* colocation);

// Appends to summary["scenario"]["sharing"]["parameters"]: under a MIG model (mig, mig+mps,
// mig+timeslice) `measured_mig_speeds`, how many jobs ran at measured MIG speeds; with
// `colocation` (a model that uses pair speeds) `measured_colocation_speeds`, how many jobs ran
// at measured pair speeds.
void add_workload_parameters(nlohmann::json& summary, const Scenario& scenario,
                             const WorkloadCounts& counts, const ColocationCounts* colocation);

// The summary table's "workloads" line, from summary.json's trace.workloads.
void print_workloads_line(const nlohmann::json& workloads, std::ostream& out);

}  // namespace gpumux
