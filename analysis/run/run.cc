#include "analysis/run/run.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>

#include "analysis/metrics/expectations.h"
#include "analysis/metrics/output_collectors.h"
#include "analysis/metrics/service_metrics.h"
#include "analysis/output/output_folder.h"
#include "analysis/report/html_report.h"
#include "analysis/run/colocation_tally.h"
#include "analysis/run/provenance.h"
#include "analysis/run/rejection_tally.h"
#include "analysis/run/trace_pipeline.h"
#include "analysis/run/trace_summary.h"
#include "analysis/run/workload_echo.h"
#include "sim/base/atomic_file.h"
#include "sim/placement/placement.h"
#include "sim/placement/registry.h"
#include "sim/placement/share_view.h"
#include "traces/transforms/workload_source.h"

namespace gpumux {

namespace {

// The run's scheduler over `cluster`. With a share-aware placement policy, or a model that
// limits compute shares, `share_view` is set to the cluster mirrored in the FGD study's terms
// (placement decisions, fragmentation metrics).
Scheduler make_scheduler(const Scenario& scenario, Cluster& cluster, TraceCache* cache,
                         std::unique_ptr<ShareView>& share_view) {
  const PlacementInfo& placement_info = *scenario.placement;  // resolved by parse_scenario
  if (placement_info.share_aware || scenario.model->limits_compute_shares()) {
    share_view = std::make_unique<ShareView>(cluster, typical_job_kinds(scenario, cache),
                                             scenario.file + "#/scheduler/placement");
  }
  return Scheduler(*scenario.queue,
                   make_placement(placement_info,
                                  PlacementContext{share_view.get(),
                                                   scenario.seed ^ 0x6a09e667f3bcc909ULL},
                                  scenario.placement_params),
                   QueueSettings{scenario.backfill_depth, scenario.order}, scenario.queue_params);
}

EngineOptions engine_options(const Scenario& scenario, bool check_invariants) {
  EngineOptions options{scenario.horizon, scenario.retry_limit, scenario.retry_delay};
  // Fault times on a stream of their own: turning faults on changes no other draw.
  options.fatal_faults_per_gpu_hour = scenario.fatal_faults_per_gpu_hour;
  options.fault_seed = scenario.seed ^ 0xd1b54a32d192ed03ULL;
  options.injected_faults = scenario.injected_faults;
  options.check_invariants = check_invariants;
  return options;
}

// An injected fault whose job never started did not happen: the run is not the experiment the
// scenario describes (a misspelt id, a job rejected or never reached).
void require_injected_faults_fired(const Scenario& scenario, const Engine& engine) {
  const std::vector<std::string> not_fired = engine.injected_faults_not_fired();
  if (not_fired.empty()) return;
  std::size_t index = 0;
  while (scenario.injected_faults[index].job_id != not_fired.front()) ++index;
  throw InputError(scenario.file + "#/faults/inject/" + std::to_string(index) + "/job", "job",
                   "job '" + not_fired.front() +
                       "' never started, so its fault never happened (not in the trace, "
                       "rejected, or past the time limit)");
}

}  // namespace

bool invariant_checks_from_environment() {
  const char* v = std::getenv("GPUMUX_CHECK_INVARIANTS");
  return v != nullptr && *v != '\0' && std::string_view(v) != "0";
}

RunReport run_scenario(const Scenario& scenario, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  validate_expect_names(scenario);  // before anything runs or is written
  RunReport report;
  report.out_dir = scenario.outputs.dir;
  namespace fs = std::filesystem;

  TracePipeline pipeline(scenario, options.trace_cache);

  // Every file goes into the folder's temporary twin; the folder is replaced only at the end.
  std::unique_ptr<OutputFolder> folder;
  if (options.write_outputs) folder = std::make_unique<OutputFolder>(scenario.outputs.dir);
  auto shown = [&](const char* name) { return (fs::path(scenario.outputs.dir) / name).string(); };

  Cluster cluster(scenario.devices, scenario.nodes, scenario.pool);
  std::unique_ptr<ShareView> share_view;
  Scheduler scheduler = make_scheduler(scenario, cluster, options.trace_cache, share_view);
  const bool check_invariants = options.check_invariants || invariant_checks_from_environment();
  Engine engine(cluster, *scenario.model, scheduler, pipeline.jobs(),
                engine_options(scenario, check_invariants));
  // Everything that watches the run (analysis/metrics/output_collectors.h), in table order.
  CollectorInputs inputs{scenario, cluster, share_view.get(), {}};
  if (folder) {
    inputs.open_file = [&](const char* name) {
      return std::make_unique<AtomicFile>(folder->file(name), shown(name));
    };
  }
  inputs.jobs = &engine.jobs();
  inputs.check_invariants = check_invariants;
  inputs.progress = options.progress;
  RunCollectors collectors(inputs);
  for (EngineObserver* observer : collectors.observers()) engine.add_observer(observer);
  for (EngineObserver* observer : options.observers) engine.add_observer(observer);
  try {
    report.engine = engine.run();
  } catch (const TimeOverflow& e) {
    // Only inputs make times this large (durations near kMaxInputSeconds, queued in series).
    throw InputError(trace_name(scenario), "",
                     std::string(e.what()) + ": the trace's times or durations are too large");
  } catch (const TimeseriesTooLong& e) {
    throw InputError(scenario.file + "#/outputs/timeseries_interval_s", "timeseries_interval_s",
                     e.what());
  }
  report.rejected_by_reason = collectors.observer<RejectionTally>()->counts();
  if (const auto* services = collectors.observer<ServiceMetrics>()) {
    report.llm_cdfs = services->llm_cdfs();
  }
  require_injected_faults_fired(scenario, engine);
  // A trace that gave no job measures nothing: bad input, and no output folder is written.
  require_jobs(pipeline, scenario);

  std::optional<ColocationCounts> colocation;
  if (const auto* tally = collectors.observer<ColocationTally>()) colocation = tally->counts();
  const ColocationCounts* pairs = colocation ? &*colocation : nullptr;
  report.summary = {
      {"gpumux_version", GPUMUX_VERSION},
      {"provenance", provenance_json(scenario)},
      {"scenario", scenario.resolved},
      {"trace", trace_summary_json(scenario, pipeline, report.engine, pairs)},
      {"engine",
       {{"events", report.engine.events},
        {"stale_events", report.engine.stale_events},
        {"memory_faults", report.engine.memory_faults},
        {"fatal_faults", report.engine.fatal_faults},
        {"stopped_at_time_limit", report.engine.hit_horizon},
        {"end_time_s", report.engine.end_time.seconds()}}},
      {"metrics", collectors.metrics()},
  };
  if (const auto* workloads = pipeline.stage<WorkloadSource>()) {
    add_workload_parameters(report.summary, scenario, workloads->counts(), pairs);
  }
  // Runs without bounds keep their summary exactly as before: no `expect` key.
  if (!scenario.expect.empty()) {
    report.expect = check_expect(scenario.expect, report.summary);
    report.summary["expect"] = expect_results_json(report.expect);
  }

  if (folder) {
    AtomicFile summary(folder->file("summary.json"), shown("summary.json"));
    summary.stream() << report.summary.dump(2) << '\n';
    collectors.commit_files();
    summary.commit();
    if (options.html_report) {
      // Drawn from the temporary folder but naming the folder the outputs end up in.
      write_html_report(read_run_and_plan_folders({folder->temp_path()}, {scenario.outputs.dir}),
                        folder->file("report.html"));
    }
    if (options.defer_commit) {
      report.pending = std::move(folder);
    } else {
      folder->commit();
    }
  }
  report.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return report;
}

}  // namespace gpumux
