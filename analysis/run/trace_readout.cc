#include "analysis/run/trace_readout.h"

#include <memory>
#include <set>
#include <string>

#include "analysis/run/trace_pipeline.h"
#include "sim/base/input_error.h"
#include "traces/formats/trace_opening.h"
#include "traces/transforms/filter_source.h"
#include "traces/transforms/workload_source.h"

namespace gpumux {

TraceReadout read_whole_trace(const Scenario& scenario) {
  TraceReadout out;
  if (scenario.trace.generated) {
    out.generated = true;
    return out;
  }
  // The seed the run gives the reader, so that defaults drawn from distributions (and any error
  // they raise) are the run's.
  const std::uint64_t seed = scenario.seed ^ 0x9e3779b97f4a7c15ULL;
  std::unique_ptr<TraceSource> trace = open_scenario_trace(
      scenario.trace.path, scenario.trace.format, scenario.trace.defaults, seed);
  JobSource* source = trace.get();
  std::unique_ptr<FilteringSource> filtered;
  if (scenario.trace.filter.active()) {
    filtered =
        std::make_unique<FilteringSource>(*source, scenario.trace.filter, scenario.trace.path);
    source = filtered.get();
  }
  // A workload name the catalogue lacks stops the run: found here too.
  std::unique_ptr<WorkloadSource> workloads;
  if (scenario.trace.workloads.active()) {
    workloads = std::make_unique<WorkloadSource>(*source, scenario.trace.workloads,
                                                 scenario.devices, scenario.seed,
                                                 scenario.trace.path);
    source = workloads.get();
  }
  ServiceAssigningSource services(*source, scenario.services, scenario.trace.path);
  // The checks run makes of the trace before simulating, made here too (validate --full
  // passes only what run accepts): a job that each injected fault names, and some job at all.
  std::set<std::string> fault_jobs;
  for (const auto& f : scenario.injected_faults) fault_jobs.insert(f.job_id);
  JobSpec job;
  while (services.next(job)) {
    ++out.kept;
    if (!fault_jobs.empty()) fault_jobs.erase(job.id);
  }
  out.rows = trace->stats().rows;
  out.skipped = trace->skipped_rows();
  require_trace_jobs(*trace, scenario.trace.path);
  for (std::size_t i = 0; i < scenario.injected_faults.size(); ++i) {
    const std::string& id = scenario.injected_faults[i].job_id;
    if (fault_jobs.count(id) == 0) continue;
    throw InputError(scenario.file + "#/faults/inject/" + std::to_string(i) + "/job", "job",
                     "job '" + id + "' is not in the trace" +
                         (scenario.trace.filter.active() ? " (after its filter)" : "") +
                         ", so its fault would never happen");
  }
  return out;
}

}  // namespace gpumux
