#include "analysis/run/trace_pipeline.h"

#include "analysis/run/trace_cache.h"
#include "sim/base/input_error.h"
#include "traces/formats/generator.h"
#include "traces/formats/trace_opening.h"
#include "traces/transforms/registry.h"

namespace gpumux {

namespace {

// The reader's stream of the run's seed (defaults drawn from distributions); the generator
// draws from the seed itself.
constexpr std::uint64_t kReaderStream = 0x9e3779b97f4a7c15ULL;

std::unique_ptr<TraceSource> open_trace_of(const Scenario& scenario, TraceCache* cache) {
  const std::uint64_t seed = scenario.seed ^ kReaderStream;
  if (cache) {
    return cache->open(scenario.trace.path, scenario.trace.format, scenario.trace.defaults, seed);
  }
  return open_scenario_trace(scenario.trace.path, scenario.trace.format, scenario.trace.defaults,
                             seed);
}

}  // namespace

std::string trace_name(const Scenario& scenario) {
  return scenario.trace.generated ? scenario.file + "#/trace/generator" : scenario.trace.path;
}

TracePipeline::TracePipeline(const Scenario& scenario, TraceCache* cache, Stages stages)
    : name_(trace_name(scenario)) {
  if (scenario.trace.generated) {
    stages_.push_back(std::make_unique<GeneratedJobs>(scenario.trace.generator, scenario.seed));
  } else {
    std::unique_ptr<TraceSource> reader = open_trace_of(scenario, cache);
    trace_ = reader.get();
    stages_.push_back(std::move(reader));
  }
  const TransformWrapInputs inputs{scenario, name_};
  for (const TraceTransformInfo& transform : trace_transforms()) {
    if (stages == Stages::kTypicalJobs && !transform.shapes_typical_jobs) continue;
    if (stages == Stages::kKeptRows && !transform.keeps_rows) continue;
    if (!transform.active(scenario)) continue;
    stages_.push_back(transform.wrap(*stages_.back(), inputs));
    names_.push_back(transform.name);
  }
}

JobKindCounts typical_job_kinds(const Scenario& scenario, TraceCache* cache) {
  TracePipeline pipeline(scenario, cache, TracePipeline::Stages::kTypicalJobs);
  JobKindCounts kinds;
  JobSpec job;
  while (pipeline.jobs().next(job)) kinds.add(job);
  return kinds;
}

void require_jobs(const TracePipeline& pipeline, const Scenario& scenario) {
  if (const TraceSource* trace = pipeline.trace()) require_trace_jobs(*trace, scenario.trace.path);
}

void require_trace_jobs(const TraceSource& trace, const std::string& path) {
  if (trace.stats().rows > 0) return;
  std::string skipped;
  for (const auto& [reason, n] : trace.skip_counts()) {
    skipped += (skipped.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
  }
  throw InputError(
      path, "",
      "the trace has no jobs (" +
          (skipped.empty() ? std::string("no data rows") : "every row skipped: " + skipped) +
          "): a run of no jobs measures nothing");
}

}  // namespace gpumux
