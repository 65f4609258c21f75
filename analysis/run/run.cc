#include "analysis/run/run.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "analysis/metrics/expectations.h"
#include "analysis/metrics/metrics_collector.h"
#include "analysis/metrics/output_collectors.h"
#include "analysis/output/number_text.h"
#include "analysis/output/output_folder.h"
#include "analysis/report/html_report.h"
#include "analysis/report/queue_reason_section.h"
#include "analysis/run/colocation_tally.h"
#include "analysis/run/progress.h"
#include "analysis/run/provenance.h"
#include "analysis/run/rejection_tally.h"
#include "analysis/run/trace_cache.h"
#include "analysis/run/workload_echo.h"
#include "sim/base/atomic_file.h"
#include "sim/invariants/invariant_checker.h"
#include "sim/placement/placement.h"
#include "sim/placement/registry.h"
#include "sim/placement/share_view.h"
#include "traces/fields/memory_profile_library.h"
#include "traces/formats/generator.h"
#include "traces/formats/trace_opening.h"
#include "traces/formats/trace_source.h"
#include "traces/transforms/arrival_batch_source.h"
#include "traces/transforms/filter_source.h"
#include "traces/transforms/fixed_kernel_source.h"
#include "traces/transforms/inflation_source.h"
#include "traces/transforms/integer_seconds_source.h"
#include "traces/transforms/load_factor_source.h"
#include "traces/transforms/resample_source.h"
#include "traces/transforms/workload_source.h"

namespace gpumux {

namespace {

std::string version() { return GPUMUX_VERSION; }

// How errors about the trace as a whole name it: its file, or the scenario's generator.
std::string trace_name(const Scenario& scenario) {
  return scenario.trace.generated ? scenario.file + "#/trace/generator" : scenario.trace.path;
}

// The scenario's jobs counted by kind, for the typical jobs of the FGD fragmentation measure:
// the trace is read once more, ahead of the run, holding one count per distinct kind.
// The scenario's trace as its reader gives it, through `cache` when there is one.
std::unique_ptr<TraceSource> open_trace_of(const Scenario& scenario, TraceCache* cache) {
  const std::uint64_t seed = scenario.seed ^ 0x9e3779b97f4a7c15ULL;
  if (cache) {
    return cache->open(scenario.trace.path, scenario.trace.format, scenario.trace.defaults, seed);
  }
  return open_scenario_trace(scenario.trace.path, scenario.trace.format, scenario.trace.defaults,
                             seed);
}

// trace.resample's source over `source`, or null when the scenario resamples nothing. Its own
// stream of the seed: resampling changes no other draw, and every reading of the trace in a run
// (the run itself, the share view's typical jobs) draws the same list.
std::unique_ptr<ResamplingSource> resampled_over(const Scenario& scenario, JobSource& source) {
  if (scenario.trace.resample == ResampleMethod::kNone) return nullptr;
  return std::make_unique<ResamplingSource>(source, scenario.trace.resample,
                                            scenario.seed ^ 0xa54ff53a5f1d36f1ULL,
                                            scenario.file + "#/trace/resample");
}

JobKindCounts share_workload(const Scenario& scenario, TraceCache* cache) {
  std::unique_ptr<JobSource> source;
  if (scenario.trace.generated) {
    source = std::make_unique<GeneratedJobs>(scenario.trace.generator, scenario.seed);
  } else {
    source = open_trace_of(scenario, cache);
  }
  // The typical jobs are those the run will see: the kept ones.
  std::unique_ptr<FilteringSource> filtered;
  if (scenario.trace.filter.active()) {
    filtered =
        std::make_unique<FilteringSource>(*source, scenario.trace.filter, trace_name(scenario));
  }
  JobSource* kept = filtered ? static_cast<JobSource*>(filtered.get()) : source.get();
  const std::unique_ptr<ResamplingSource> resampled = resampled_over(scenario, *kept);
  JobSource& jobs = resampled ? static_cast<JobSource&>(*resampled) : *kept;
  JobKindCounts kinds;
  JobSpec job;
  while (jobs.next(job)) kinds.add(job);
  return kinds;
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

  std::unique_ptr<TraceSource> trace;
  std::unique_ptr<GeneratedJobs> generated;
  JobSource* source = nullptr;
  // Separate streams for the generator and defaulted fields, derived from the run's seed.
  if (scenario.trace.generated) {
    generated = std::make_unique<GeneratedJobs>(scenario.trace.generator, scenario.seed);
    source = generated.get();
  } else {
    trace = open_trace_of(scenario, options.trace_cache);
    source = trace.get();
  }

  // The filter before every transform: they see the trace as if it held only the kept rows.
  std::unique_ptr<FilteringSource> filtered;
  if (scenario.trace.filter.active()) {
    filtered =
        std::make_unique<FilteringSource>(*source, scenario.trace.filter, trace_name(scenario));
    source = filtered.get();
  }

  // Workloads (trace.catalogue): each kept job's facts, before any transform copies jobs.
  std::unique_ptr<WorkloadSource> workloads;
  if (scenario.trace.workloads.active()) {
    workloads = std::make_unique<WorkloadSource>(*source, scenario.trace.workloads,
                                                 scenario.devices,
                                                 scenario.seed ^ 0x510e527fade682d1ULL,
                                                 trace_name(scenario));
    source = workloads.get();
  }

  // Resampling draws the kept jobs anew (the seed's own stream); never with inflation.
  const std::unique_ptr<ResamplingSource> resampled = resampled_over(scenario, *source);
  if (resampled) source = resampled.get();

  // Inflation re-samples a snapshot list into arrivals in time (the seed's own stream).
  std::unique_ptr<InflatingSource> inflated;
  if (scenario.trace.inflation.load > 0) {
    inflated = std::make_unique<InflatingSource>(
        *source, scenario.trace.inflation,
        static_cast<std::int64_t>(scenario.trace.inflation.cluster_gpus > 0
                                      ? scenario.trace.inflation.cluster_gpus
                                      : scenario.gpu_count()) *
            1000,
        scenario.seed ^ 0x3c6ef372fe94f82bULL, scenario.file + "#/trace/inflation");
    source = inflated.get();
  }

  // Load growth compresses submit times before they are rounded or batched.
  std::unique_ptr<LoadFactorSource> compressed;
  if (scenario.trace.load_factor != 1.0) {
    compressed = std::make_unique<LoadFactorSource>(*source, scenario.trace.load_factor);
    source = compressed.get();
  }

  // Whole seconds first (the batch ranking below sees the rounded submit times).
  std::unique_ptr<IntegerSecondsSource> whole_seconds;
  if (scenario.trace.integer_seconds) {
    whole_seconds = std::make_unique<IntegerSecondsSource>(*source);
    source = whole_seconds.get();
  }

  // Batch arrivals rewrite submit times next: everything after sees the rewritten stream.
  std::unique_ptr<ArrivalBatchSource> batched;
  if (scenario.trace.batch_jobs > 0) {
    batched = std::make_unique<ArrivalBatchSource>(*source, scenario.trace.batch_jobs,
                                                   scenario.trace.batch_every);
    source = batched.get();
  }

  // Inference services: completes the trace's service columns with the scenario's `services`
  // section (and clears what other sources leave), before memory profiles are drawn.
  ServiceAssigningSource services(*source, scenario.services,
                                  scenario.trace.generated ? "generator" : scenario.trace.path);
  source = &services;

  std::unique_ptr<ProfileAssigningSource> profiled;
  if (!scenario.trace.memory_profiles.empty()) {
    profiled = std::make_unique<ProfileAssigningSource>(*source, scenario.trace.memory_profiles,
                                                        scenario.seed ^ 0x5bd1e9955bd1e995ULL);
    source = profiled.get();
  }

  std::unique_ptr<FixedKernelSource> fixed;
  if (scenario.trace.fixed_kernel_lengths) {
    fixed = std::make_unique<FixedKernelSource>(*source);
    source = fixed.get();
  }

  // Every file goes into the folder's temporary twin; the folder is replaced only at the end.
  std::unique_ptr<OutputFolder> folder;
  if (options.write_outputs) folder = std::make_unique<OutputFolder>(scenario.outputs.dir);
  auto shown = [&](const char* name) { return (fs::path(scenario.outputs.dir) / name).string(); };
  std::unique_ptr<AtomicFile> jobs_file, series_file;
  if (folder && scenario.outputs.jobs_csv) {
    jobs_file = std::make_unique<AtomicFile>(folder->file("jobs.csv"), shown("jobs.csv"));
  }
  if (folder && scenario.outputs.timeseries_csv) {
    series_file =
        std::make_unique<AtomicFile>(folder->file("timeseries.csv"), shown("timeseries.csv"));
  }

  Cluster cluster(scenario.devices, scenario.nodes, scenario.pool);
  // GPU shares: a share-aware placement policy, or a model that limits compute shares, mirror
  // the cluster in the FGD study's terms (placement decisions, fragmentation metrics).
  const PlacementInfo& placement_info = *scenario.placement;  // resolved by parse_scenario
  const bool share_placement = placement_info.share_aware;
  std::unique_ptr<ShareView> share_view;
  if (share_placement || scenario.model->limits_compute_shares()) {
    share_view = std::make_unique<ShareView>(cluster, share_workload(scenario, options.trace_cache),
                                             scenario.file + "#/scheduler/placement");
  }
  std::unique_ptr<PlacementPolicy> placement = make_placement(
      placement_info, PlacementContext{share_view.get(), scenario.seed ^ 0x6a09e667f3bcc909ULL},
      scenario.placement_params);
  Scheduler scheduler(*scenario.queue, std::move(placement),
                      QueueSettings{scenario.backfill_depth, scenario.order},
                      scenario.queue_params);
  EngineOptions engine_options{scenario.horizon, scenario.retry_limit, scenario.retry_delay};
  // Fault times on a stream of their own: turning faults on changes no other draw.
  engine_options.fatal_faults_per_gpu_hour = scenario.fatal_faults_per_gpu_hour;
  engine_options.fault_seed = scenario.seed ^ 0xd1b54a32d192ed03ULL;
  engine_options.injected_faults = scenario.injected_faults;
  const bool check_invariants = options.check_invariants || invariant_checks_from_environment();
  engine_options.check_invariants = check_invariants;
  Engine engine(cluster, *scenario.model, scheduler, *source, engine_options);
  std::unique_ptr<InvariantChecker> invariants;
  if (check_invariants) {
    invariants = std::make_unique<InvariantChecker>(cluster, *scenario.model);
    engine.add_observer(invariants.get());
  }
  // The optional metric families (analysis/metrics/output_collectors.h), in table order.
  CollectorInputs inputs{scenario, cluster, share_view.get(), {}};
  if (folder) {
    inputs.open_file = [&](const char* name) {
      return std::make_unique<AtomicFile>(folder->file(name), shown(name));
    };
  }
  std::vector<std::pair<std::string_view, std::unique_ptr<OutputCollector>>> collectors;
  std::vector<const TimeseriesColumns*> extra_columns;
  for (const CollectorInfo& info : output_collectors()) {
    if (!info.applies(inputs)) continue;
    collectors.emplace_back(info.name, info.make(inputs));
    if (const auto* columns = collectors.back().second->timeseries_columns()) {
      extra_columns.push_back(columns);
    }
  }
  MetricsCollector metrics(cluster.gpu_count(), scenario.outputs.timeseries_interval,
                           jobs_file ? &jobs_file->stream() : nullptr,
                           series_file ? &series_file->stream() : nullptr,
                           std::move(extra_columns));
  metrics.describe_placements(cluster, *scenario.model);
  metrics.set_exact_percentiles(scenario.outputs.exact_percentiles);
  engine.add_observer(&metrics);
  RejectionTally rejections;
  engine.add_observer(&rejections);
  // Which jobs ran at measured pair speeds: only with a catalogue, under a model that uses them.
  std::unique_ptr<ColocationTally> colocation;
  if (workloads && scenario.model->uses_colocation_speeds()) {
    colocation = std::make_unique<ColocationTally>(engine.jobs());
    engine.add_observer(colocation.get());
  }
  for (auto& [key, collector] : collectors) {
    for (EngineObserver* observer : collector->observers()) engine.add_observer(observer);
  }
  for (EngineObserver* observer : options.observers) engine.add_observer(observer);
  std::unique_ptr<ProgressReporter> progress;
  if (options.progress) {
    progress = std::make_unique<ProgressReporter>(*options.progress, expected_job_count(scenario));
    engine.add_observer(progress.get());
  }
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

  report.rejected_by_reason = rejections.counts();

  // An injected fault whose job never started did not happen: the run is not the experiment
  // the scenario describes (a misspelt id, a job rejected or never reached).
  const std::vector<std::string> not_fired = engine.injected_faults_not_fired();
  if (!not_fired.empty()) {
    std::size_t index = 0;
    while (scenario.injected_faults[index].job_id != not_fired.front()) ++index;
    throw InputError(scenario.file + "#/faults/inject/" + std::to_string(index) + "/job", "job",
                     "job '" + not_fired.front() +
                         "' never started, so its fault never happened (not in the trace, "
                         "rejected, or past the time limit)");
  }

  // A trace that gave no job (header only, or every row skipped) measures nothing: bad input,
  // and no output folder is written.
  if (trace && trace->stats().rows == 0) {
    std::string skipped;
    for (const auto& [reason, n] : trace->skip_counts()) {
      skipped += (skipped.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
    }
    throw InputError(
        scenario.trace.path, "",
        "the trace has no jobs (" +
            (skipped.empty() ? std::string("no data rows") : "every row skipped: " + skipped) +
            "): a run of no jobs measures nothing");
  }
  nlohmann::json trace_json;
  if (trace) {
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
    trace_json = {{"rows", filtered ? filtered->read() : report.engine.arrived},
                  {"generated", true}};
  }
  // Runs without a filter keep their summary exactly as before: no `filtered_out` key.
  if (filtered) trace_json["filtered_out"] = filtered->summary();
  if (resampled) {
    trace_json["resample"] = {
        {"method", std::string(resample_method_name(scenario.trace.resample))},
        {"list_jobs", resampled->list_size()},
        {"distinct_jobs", resampled->distinct_jobs()}};
  }
  if (inflated) {
    trace_json["inflation"] = {{"list_jobs", inflated->list_size()},
                               {"runtimes_clipped", inflated->clipped()},
                               {"arrivals", report.engine.arrived},
                               {"arrivals_per_s", inflated->arrivals_per_s()}};
  }
  std::optional<ColocationCounts> colocation_counts;
  if (colocation) colocation_counts = colocation->counts();
  const ColocationCounts* pairs = colocation_counts ? &*colocation_counts : nullptr;
  if (workloads) trace_json["workloads"] = workloads_json(scenario, workloads->counts(), pairs);
  report.summary = {
      {"gpumux_version", version()},
      {"provenance", provenance_json(scenario)},
      {"scenario", scenario.resolved},
      {"trace", trace_json},
      {"engine",
       {{"events", report.engine.events},
        {"stale_events", report.engine.stale_events},
        {"memory_faults", report.engine.memory_faults},
        {"fatal_faults", report.engine.fatal_faults},
        {"stopped_at_time_limit", report.engine.hit_horizon},
        {"end_time_s", report.engine.end_time.seconds()}}},
      {"metrics", metrics.metrics()},
  };
  if (workloads) add_workload_parameters(report.summary, scenario, workloads->counts(), pairs);
  for (const auto& [key, collector] : collectors) {
    if (nlohmann::json m = collector->metrics(); !m.is_null()) {
      report.summary["metrics"][std::string(key)] = std::move(m);
    }
  }
  // Runs without bounds keep their summary exactly as before: no `expect` key.
  if (!scenario.expect.empty()) {
    report.expect = check_expect(scenario.expect, report.summary);
    report.summary["expect"] = expect_results_json(report.expect);
  }

  if (folder) {
    AtomicFile summary(folder->file("summary.json"), shown("summary.json"));
    summary.stream() << report.summary.dump(2) << '\n';
    if (jobs_file) jobs_file->commit();
    if (series_file) series_file->commit();
    for (auto& [key, collector] : collectors) collector->commit_files();
    summary.commit();
    if (options.html_report) {
      // Drawn from the temporary folder but naming the folder the outputs end up in.
      write_html_report(read_run_and_plan_folders({folder->temp_path()}, {scenario.outputs.dir}),
                        folder->file("report.html"));
    }
    folder->commit();
  }
  report.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return report;
}

namespace {

std::string fixed(double x, int digits) { return fixed_text(x, digits); }

std::string duration_text(const nlohmann::json& value) {
  if (value.is_null()) return "n/a";
  const double s = value.get<double>();
  if (s < 120) return fixed(s, 1) + " s";
  if (s < 7200) return fixed(s / 60, 1) + " min";
  return fixed(s / 3600, 2) + " h";
}

}  // namespace

std::string excluded_jobs_warning(const nlohmann::json& summary) {
  const auto& jobs = summary.at("metrics").at("jobs");
  const auto rejected = jobs.at("rejected").get<std::uint64_t>();
  const auto failed = jobs.at("failed").get<std::uint64_t>();
  const auto unfinished = jobs.at("unfinished_queued").get<std::uint64_t>() +
                          jobs.at("unfinished_running").get<std::uint64_t>();
  if (rejected + failed + unfinished == 0) return "";
  const auto arrived = jobs.at("arrived").get<std::uint64_t>();
  const double share = arrived > 0 ? 100.0 * static_cast<double>(rejected + failed + unfinished) /
                                         static_cast<double>(arrived)
                                   : 0.0;
  return "warning: " + std::to_string(rejected + failed + unfinished) + " of " +
         std::to_string(arrived) + " arrived jobs (" + fixed(share, 1) +
         " %) are left out of the JCT, queueing-delay and slowdown percentiles: " +
         std::to_string(rejected) + " rejected, " + std::to_string(failed) + " failed, " +
         std::to_string(unfinished) +
         " unfinished (metrics.<distribution>.excluded in summary.json; jobs.csv has each)";
}

void print_summary_table(const Scenario& s, const RunReport& r, std::ostream& out) {
  const auto& m = r.summary["metrics"];
  const auto& sc = r.summary["scenario"];
  out << "gpumux " << version() << "  scenario '" << s.name << "' (" << s.file << ")  seed "
      << s.seed << "\n";
  out << "cluster     " << s.gpu_count() << " GPUs on " << s.nodes.size() << " nodes (";
  for (std::size_t i = 0; i < s.devices.size(); ++i) out << (i ? ", " : "") << s.devices[i].name;
  out << ")\n";
  out << "sharing     " << sc["sharing"]["model"].get<std::string>() << "\n";
  for (const auto& p : sc["sharing"]["parameters"]) {
    out << "            " << parameter_text(p) << "\n";
  }
  out << "scheduler   " << sc["scheduler"]["queue"].get<std::string>() << " + "
      << sc["scheduler"]["placement"].get<std::string>() << "\n";
  const auto& tr = r.summary["trace"];
  if (s.trace.generated) {
    out << "trace       synthetic generator, " << tr["rows"] << " jobs\n";
  } else {
    out << "trace       " << s.trace.path << " (" << s.trace.format << "), " << tr["rows"]
        << " jobs, " << tr["skipped"] << " rows skipped";
    std::string reasons;
    for (const auto& [reason, n] : tr["skipped_by_reason"].items()) {
      reasons += (reasons.empty() ? "" : ", ") + reason + " " + n.dump();
    }
    out << (reasons.empty() ? "" : " (" + reasons + ")") << "\n";
    // Defaults the scenario chose, one per line; built-in ones on one line.
    std::string builtin;
    for (const auto& [field, use] : tr["defaults_used"].items()) {
      // Empty or whole by default: no effect.
      if (field == "mig_profile" || field == "tenant" || field == "gpu_milli") continue;
      if (use["source"] == "built-in default") {
        builtin += (builtin.empty() ? "" : ", ") + field + "=" + use["value"].dump();
        continue;
      }
      out << "  default   " << field << " ~ " << use["value"].dump() << " ("
          << use["source"].get<std::string>() << ", " << use["rows"] << " rows)\n";
    }
    if (!builtin.empty()) out << "  default   " << builtin << " (built-in, not in the trace)\n";
    // A service's duty cycle and SM share decide what its neighbours meet; when they came from
    // defaults, say what they mean for a service (docs/services.md "sm_util and sm_share").
    const auto& defaults_used = tr["defaults_used"];
    if (r.summary["metrics"].contains("requests") &&
        (defaults_used.contains("sm_util") || defaults_used.contains("sm_share"))) {
      out << "  note      services: sm_util is a service's duty cycle alone (request rate x "
             "service time), sm_share the SM share its kernels occupy (batch-1 inference "
             "kernels fill a fraction); both weigh what its neighbours meet "
             "(docs/services.md)\n";
    }
    // The advice is to inflate the list: a run that does already needs no note.
    if (tr.contains("list") && tr["list"].value("looks_like_snapshot", false) &&
        !tr.contains("inflation")) {
      out << "  note      " << tr["list"]["advice"].get<std::string>() << " ("
          << fixed_text(100.0 * tr["list"]["arrivals_in_last_10pct_of_span"].get<double>(), 1)
          << " % of arrivals in the last 10% of the span)\n";
    }
  }
  if (tr.contains("workloads")) print_workloads_line(tr["workloads"], out);
  if (tr.contains("filtered_out")) {
    const auto& f = tr["filtered_out"];
    std::string by;
    for (const auto& [criterion, n] : f["by_criterion"].items()) {
      by += (by.empty() ? "" : ", ") + criterion + " " + n.dump();
    }
    out << "  filter    " << f["jobs"] << " jobs filtered out by trace.filter (" << by << ")\n";
  }
  if (tr.contains("resample")) {
    const auto& drawn = tr["resample"];
    if (drawn["method"] == "bootstrap") {
      out << "  resample  bootstrap: " << drawn["list_jobs"] << " jobs drawn with replacement from "
          << drawn["list_jobs"] << " (" << drawn["distinct_jobs"] << " distinct)\n";
    } else {
      out << "  resample  arrival-order: " << drawn["list_jobs"]
          << " jobs shuffled over their submit times\n";
    }
  }
  if (tr.contains("inflation")) {
    out << "  inflation " << tr["inflation"]["arrivals"] << " arrivals re-sampled from "
        << tr["inflation"]["list_jobs"] << " jobs at load " << s.trace.inflation.load << "\n";
  }
  const auto& jobs = m["jobs"];
  out << "\n";
  out << "  jobs finished / arrived      " << jobs["finished"] << " / " << jobs["arrived"];
  if (jobs["rejected"].get<std::uint64_t>() > 0) out << "  (" << jobs["rejected"] << " rejected)";
  const auto unfinished = jobs["unfinished_queued"].get<std::uint64_t>() +
                          jobs["unfinished_running"].get<std::uint64_t>();
  if (jobs["failed"].get<std::uint64_t>() > 0) out << "  (" << jobs["failed"] << " failed)";
  if (unfinished > 0) out << "  (" << unfinished << " unfinished at the time limit)";
  out << "\n";
  out << "  makespan                     " << duration_text(m["makespan_s"]) << "\n";
  out << "  GPU allocation ratio         " << fixed_or_na(m["gpu_allocation_ratio"], 1, 100)
      << " %\n";
  out << "  SM-busy utilization          " << fixed_or_na(m["sm_busy_utilization"], 1, 100)
      << " %  (" << fixed_or_na(m["sm_busy_per_allocated_gpu"], 1, 100) << " % of GPUs in use)\n";
  out << "  sharing overhead             " << fixed_or_na(m["sharing_overhead"], 1, 100) << " %  ("
      << fixed(m["sharing_overhead_gpu_hours"].get<double>(), 1) << " GPU-hours)\n";
  const auto& failures = m["failures"];
  if (failures["memory_faults"].get<std::uint64_t>() > 0) {
    out << "  out-of-memory events         " << failures["memory_faults"] << "  ("
        << failures["memory_fault_kills"] << " kills)\n";
  }
  if (failures["fatal_faults"].get<std::uint64_t>() > 0) {
    out << "  fatal GPU faults             " << failures["fatal_faults"] << "  ("
        << failures["fatal_fault_kills"] << " kills)\n";
  }
  if (failures["jobs_killed"].get<std::uint64_t>() > 0) {
    out << "  jobs killed                  " << failures["jobs_killed"] << "  ("
        << failures["jobs_failed"] << " jobs failed, "
        << fixed(failures["lost_work_gpu_hours"].get<double>(), 1) << " GPU-hours lost)\n";
  }
  const auto& reconfigurations = m["reconfigurations"];
  if (reconfigurations["count"].get<std::uint64_t>() > 0) {
    out << "  reconfigurations             " << reconfigurations["count"] << "  ("
        << fixed(reconfigurations["drain_gpu_hours"].get<double>(), 2) << " GPU-hours draining, "
        << fixed(reconfigurations["reconfiguration_gpu_hours"].get<double>(), 2)
        << " reconfiguring)\n";
    if (reconfigurations["migrations"].get<std::uint64_t>() > 0) {
      out << "  jobs migrated                " << reconfigurations["migrations"] << "  ("
          << fixed(reconfigurations["checkpoint_gpu_hours"].get<double>(), 2)
          << " GPU-hours checkpointing, "
          << fixed(reconfigurations["migration_lost_work_gpu_hours"].get<double>(), 2)
          << " GPU-hours of work lost)\n";
    }
  }
  if (m.contains("slots")) {
    const auto& sl = m["slots"];
    auto percent = [&](const char* key) { return fixed_or_na(sl[key], 1, 100) + " %"; };
    out << "  slice utilization            " << percent("slice_utilization") << "  (memory "
        << percent("memory_allocation_share") << "; free " << percent("free_slice_share")
        << ", unavailable " << percent("unavailable_slice_share") << ")\n";
    out << "  slice fragmentation          " << percent("fragmentation")
        << "  (free slices no queued job fits)\n";
    out << "  fit-blocked jobs             " << sl["fit_blocked"]["jobs"] << "  ("
        << fixed(sl["fit_blocked"]["wait_job_hours"].get<double>(), 1)
        << " job-hours queued with free slots, none fitting)\n";
    std::string occupancy;
    for (const auto& [name, p] : sl["profiles"].items()) {
      occupancy +=
          (occupancy.empty() ? "" : ", ") + name + " " + fixed_or_na(p["occupancy"], 1, 100) + " %";
    }
    if (!occupancy.empty()) out << "  slot occupancy               " << occupancy << "\n";
  }
  if (m.contains("requests")) {
    const auto& rq = m["requests"];
    const std::size_t services = rq["services"].size();
    out << "  requests (" << services << (services == 1 ? " service, " : " services, ")
        << rq["mode"].get<std::string>() << " mode)  " << rq["count"] << " arrived, "
        << rq["served"] << " served, " << rq["dropped"] << " dropped, " << rq["timed_out"]
        << " timed out, " << rq["unfinished"] << " unfinished; "
        << fixed_or_na(rq["served_per_s"], 1) << " served/s\n";
    const auto& l = rq["latency_ms"];
    auto ms = [](const nlohmann::json& v) { return fixed_or_na(v, 2); };
    out << "  request latency (ms)         mean " << ms(l["mean"]) << ", p50 " << ms(l["p50"])
        << ", p95 " << ms(l["p95"]) << ", p99 " << ms(l["p99"]) << "; SLO attainment "
        << (rq["slo_attainment"].is_null()
                ? std::string("n/a (no SLO)")
                : fixed(100 * rq["slo_attainment"].get<double>(), 2) + " %")
        << "\n";
    // Requests count from a service's first start: a late start hides in the latency above.
    const auto& delay = rq["start_delay_s"];
    out << "  service start delay (s)      mean " << fixed(delay["mean"].get<double>(), 1)
        << ", max " << fixed(delay["max"].get<double>(), 1) << "; " << rq["services_unstarted"]
        << " never started\n";
  }
  out << "  GPUs in use (mean / peak)    " << fixed_or_na(m["mean_allocated_gpus"], 1) << " / "
      << m["peak_allocated_gpus"] << " of " << m["gpus"] << "\n\n";
  out << "  " << std::left << std::setw(22) << "" << std::right;
  for (const char* h : {"mean", "p50", "p90", "p95", "p99", "max"}) out << std::setw(11) << h;
  out << "\n";
  auto row = [&](const char* label, const nlohmann::json& d, int digits) {
    out << "  " << std::left << std::setw(22) << label << std::right;
    for (const char* k : {"mean", "p50", "p90", "p95", "p99", "max"}) {
      out << std::setw(11) << fixed_or_na(d[k], digits);
    }
    out << "\n";
  };
  row("JCT (s)", m["jct_s"], 1);
  row("queueing delay (s)", m["queueing_delay_s"], 1);
  row("slowdown (x)", m["slowdown"], 2);
  row("sharing slowdown (x)", m["sharing_slowdown"], 2);
  const auto& excluded = m["jct_s"]["excluded"];
  const auto left_out = excluded["rejected"].get<std::uint64_t>() +
                        excluded["failed"].get<std::uint64_t>() +
                        excluded["unfinished"].get<std::uint64_t>();
  out << "  (over " << m["jct_s"]["count"] << " finished jobs";
  if (left_out > 0) {
    out << "; LEFT OUT: " << excluded["rejected"] << " rejected, " << excluded["failed"]
        << " failed, " << excluded["unfinished"] << " unfinished";
  }
  out << ")\n";
  // Only when something queued: why the head of the queue waited, by queued job-seconds.
  if (const std::string queued_by = queued_by_reason_text(m); !queued_by.empty()) {
    out << "  queued by   " << queued_by << "\n";
  }
  if (!r.out_dir.empty()) {
    out << "\noutputs     " << r.out_dir << "/{summary.json";
    if (s.outputs.jobs_csv) out << ",jobs.csv";
    if (s.outputs.timeseries_csv) out << ",timeseries.csv";
    if (s.outputs.timeseries_csv && r.summary["metrics"].contains("slots"))
      out << ",slot_timeseries.csv";
    out << "}\n";
  }
}

}  // namespace gpumux
