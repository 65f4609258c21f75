#include "analysis/run/trace_summary.h"

#include "analysis/run/workload_echo.h"
#include "scenarios/service_config.h"
#include "traces/transforms/filter_source.h"
#include "traces/transforms/inflation_source.h"
#include "traces/transforms/resample_source.h"
#include "traces/transforms/workload_source.h"

namespace gpumux {

nlohmann::json trace_summary_json(const Scenario& scenario, const TracePipeline& pipeline,
                                  const EngineStats& engine, const ColocationCounts* colocation) {
  const auto* filtered = pipeline.stage<FilteringSource>();
  const auto* workloads = pipeline.stage<WorkloadSource>();
  nlohmann::json trace_json;
  if (const TraceSource* trace = pipeline.trace()) {
    const TraceStats& st = trace->stats();
    nlohmann::json defaults_used = nlohmann::json::object();
    for (const auto& f : job_fields()) {
      // The jobs the run saw: the filter's removed jobs' defaults do not count.
      const auto i = static_cast<int>(f.field);
      // Values the catalogue filled are not defaults (trace.workloads.filled counts them).
      const auto rows = st.defaults.rows[i] -
                        (filtered ? filtered->removed_defaults().rows[i] : 0) -
                        (workloads ? workloads->counts().filled[i] : 0);
      if (rows == 0 || f.required) continue;
      defaults_used[std::string(f.name)] = {{"rows", rows},
                                            {"value", scenario.trace.defaults.value_json(f.field)},
                                            {"source", scenario.trace.defaults.source(f.field)}};
    }
    nlohmann::json skipped = nlohmann::json::object();
    std::uint64_t skipped_total = 0;
    for (const auto& [reason, n] : trace->skip_counts()) {
      skipped[reason] = n;
      skipped_total += n;
    }
    trace_json = {{"rows", st.rows},
                  {"skipped", skipped_total},
                  {"skipped_by_reason", skipped},
                  {"defaults_used", defaults_used}};
    // Runs of lists without notes keep their summary exactly as before: no `list` key.
    if (auto notes = trace->list_notes(); !notes.is_null()) trace_json["list"] = notes;
  } else {
    // Generated jobs are all read: with a filter, the kept ones and those it removed.
    trace_json = {{"rows", filtered ? filtered->read() : engine.arrived}, {"generated", true}};
  }
  // Runs without a filter keep their summary exactly as before: no `filtered_out` key.
  if (filtered) trace_json["filtered_out"] = filtered->summary();
  // Runs where no trace column replaced a services.default value keep their summary as before.
  if (const auto* services = pipeline.stage<ServiceAssigningSource>();
      services && !services->defaults_overridden().empty()) {
    trace_json["services_default_overridden"] = services->defaults_overridden();
  }
  if (const auto* resampled = pipeline.stage<ResamplingSource>()) {
    trace_json["resample"] = {
        {"method", std::string(resample_method_name(scenario.trace.resample))},
        {"list_jobs", resampled->list_size()},
        {"distinct_jobs", resampled->distinct_jobs()}};
  }
  if (const auto* inflated = pipeline.stage<InflatingSource>()) {
    trace_json["inflation"] = {{"list_jobs", inflated->list_size()},
                               {"runtimes_clipped", inflated->clipped()},
                               {"arrivals", engine.arrived},
                               {"arrivals_per_s", inflated->arrivals_per_s()}};
  }
  if (workloads)
    trace_json["workloads"] = workloads_json(scenario, workloads->counts(), colocation);
  return trace_json;
}

}  // namespace gpumux
