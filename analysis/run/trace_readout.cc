#include "analysis/run/trace_readout.h"

#include <memory>
#include <set>
#include <string>

#include "analysis/run/trace_pipeline.h"
#include "sim/base/input_error.h"

namespace gpumux {

TraceReadout read_whole_trace(const Scenario& scenario) {
  TraceReadout out;
  if (scenario.trace.generated) {
    out.generated = true;
    return out;
  }
  // The run's reader and the stages that keep or refuse rows, drawn from the run's seeds, so
  // that defaults drawn from distributions (and any error they raise) are the run's.
  TracePipeline pipeline(scenario, nullptr, TracePipeline::Stages::kKeptRows);
  // The checks run makes of the trace before simulating, made here too (validate --full
  // passes only what run accepts): a job that each injected fault names, and some job at all.
  std::set<std::string> fault_jobs;
  for (const auto& f : scenario.injected_faults) fault_jobs.insert(f.job_id);
  JobSpec job;
  while (pipeline.jobs().next(job)) {
    ++out.kept;
    if (!fault_jobs.empty()) fault_jobs.erase(job.id);
  }
  const TraceSource& trace = *pipeline.trace();
  out.rows = trace.stats().rows;
  out.skipped = trace.skipped_rows();
  require_jobs(pipeline, scenario);
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
