// What a run with a workload catalogue (trace.catalogue) says about it: summary.json's
// trace.workloads, the sharing parameter that counts the jobs with measured MIG speeds, and the
// summary table's line. Runs without a catalogue have none of these (their outputs are as before).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "scenarios/scenario.h"
#include "traces/transforms/workload_source.h"

namespace gpumux {

// summary.json's trace.workloads: the catalogue, jobs by how they got a workload, fields the
// catalogue filled, and jobs with measured MIG speeds against those left to the model.
nlohmann::json workloads_json(const Scenario& scenario, const WorkloadCounts& counts);

// Under a MIG model (mig, mig+mps, mig+timeslice), appends to summary["scenario"]["sharing"]
// ["parameters"] the parameter `measured_mig_speeds`: how many jobs ran at measured speeds.
void add_workload_parameters(nlohmann::json& summary, const Scenario& scenario,
                             const WorkloadCounts& counts);

// The summary table's "workloads" line, from summary.json's trace.workloads.
void print_workloads_line(const nlohmann::json& workloads, std::ostream& out);

}  // namespace gpumux
