#include "traces/transforms/registry.h"

#include "traces/transforms/arrival_batch_source.h"
#include "traces/transforms/filter_source.h"
#include "traces/transforms/fixed_kernel_source.h"
#include "traces/transforms/inflation_source.h"
#include "traces/transforms/integer_seconds_source.h"
#include "traces/transforms/load_factor_source.h"
#include "traces/transforms/resample_source.h"
#include "traces/transforms/transform_blocks.h"
#include "traces/transforms/workload_source.h"

namespace gpumux {

namespace {

// Each stage that draws at random has its own stream of the run's seed: turning one on changes
// no other draw, and every reading of the trace in a run (the run itself, the share view's
// typical jobs) draws the same jobs.
constexpr std::uint64_t kWorkloadStream = 0x510e527fade682d1ULL;
constexpr std::uint64_t kResampleStream = 0xa54ff53a5f1d36f1ULL;
constexpr std::uint64_t kInflationStream = 0x3c6ef372fe94f82bULL;
constexpr std::uint64_t kProfileStream = 0x5bd1e9955bd1e995ULL;

void parse_kernel_lengths(TransformParseInputs& in) {
  const std::string lengths = in.trace.optional_string("kernel_lengths", "exponential");
  if (lengths != "exponential" && lengths != "fixed") {
    throw InputError(in.trace.where("kernel_lengths"), "kernel_lengths",
                     "expected 'exponential' or 'fixed', got '" + lengths + "'");
  }
  in.scenario.trace.fixed_kernel_lengths = lengths == "fixed";
  if (in.scenario.trace.fixed_kernel_lengths) in.echo["kernel_lengths"] = lengths;
}

void parse_integer_seconds(TransformParseInputs& in) {
  in.scenario.trace.integer_seconds = in.trace.optional_bool("integer_seconds", false);
  if (in.scenario.trace.integer_seconds) in.echo["integer_seconds"] = true;
}

void parse_load_factor(TransformParseInputs& in) {
  in.scenario.trace.load_factor = in.trace.optional_number("load_factor", 1.0, 1e-3, 1e3);
  if (in.scenario.trace.load_factor != 1.0) in.echo["load_factor"] = in.scenario.trace.load_factor;
}

std::unique_ptr<JobSource> filtered(JobSource& inner, const TransformWrapInputs& in) {
  return std::make_unique<FilteringSource>(inner, in.scenario.trace.filter, in.trace_name);
}

std::unique_ptr<JobSource> with_workloads(JobSource& inner, const TransformWrapInputs& in) {
  return std::make_unique<WorkloadSource>(inner, in.scenario.trace.workloads, in.scenario.devices,
                                          in.scenario.seed ^ kWorkloadStream, in.trace_name);
}

std::unique_ptr<JobSource> resampled(JobSource& inner, const TransformWrapInputs& in) {
  return std::make_unique<ResamplingSource>(inner, in.scenario.trace.resample,
                                            in.scenario.seed ^ kResampleStream,
                                            in.scenario.file + "#/trace/resample");
}

std::unique_ptr<JobSource> inflated(JobSource& inner, const TransformWrapInputs& in) {
  const InflationConfig& inflation = in.scenario.trace.inflation;
  const auto gpus = static_cast<std::int64_t>(inflation.cluster_gpus > 0 ? inflation.cluster_gpus
                                                                         : in.scenario.gpu_count());
  return std::make_unique<InflatingSource>(inner, inflation, gpus * 1000,
                                           in.scenario.seed ^ kInflationStream,
                                           in.scenario.file + "#/trace/inflation");
}

std::unique_ptr<JobSource> compressed(JobSource& inner, const TransformWrapInputs& in) {
  return std::make_unique<LoadFactorSource>(inner, in.scenario.trace.load_factor);
}

std::unique_ptr<JobSource> whole_seconds(JobSource& inner, const TransformWrapInputs&) {
  return std::make_unique<IntegerSecondsSource>(inner);
}

std::unique_ptr<JobSource> batched(JobSource& inner, const TransformWrapInputs& in) {
  return std::make_unique<ArrivalBatchSource>(inner, in.scenario.trace.batch_jobs,
                                              in.scenario.trace.batch_every);
}

std::unique_ptr<JobSource> with_services(JobSource& inner, const TransformWrapInputs& in) {
  const Scenario& s = in.scenario;
  return std::make_unique<ServiceAssigningSource>(inner, s.services,
                                                  s.trace.generated ? "generator" : s.trace.path);
}

std::unique_ptr<JobSource> with_profiles(JobSource& inner, const TransformWrapInputs& in) {
  return std::make_unique<ProfileAssigningSource>(inner, in.scenario.trace.memory_profiles,
                                                  in.scenario.seed ^ kProfileStream);
}

std::unique_ptr<JobSource> fixed_kernels(JobSource& inner, const TransformWrapInputs&) {
  return std::make_unique<FixedKernelSource>(inner);
}

}  // namespace

const Registry<TraceTransformInfo>& trace_transforms() {
  static const Registry<TraceTransformInfo> table(
      "trace transform",
      {
          {"filter",
           "only the matching jobs run; the others are counted (summary trace.filtered_out)",
           {{"filter.gpus.min", "fewest GPUs a kept job asks for"},
            {"filter.gpus.max", "most GPUs a kept job asks for"},
            {"filter.kind", "job kinds kept (training, inference)"},
            {"filter.tenant", "tenants kept"}},
           parse_filter_block,
           [](const Scenario& s) { return s.trace.filter.active(); },
           filtered,
           true,
           true},
          {"catalogue",
           "each job's measured workload facts from a workload catalogue "
           "(docs/workload-catalogue.md)",
           {{"catalogue", "the workload catalogue file"},
            {"workload_mix", "workload name -> weight, for jobs that name none"}},
           parse_workloads_block,
           [](const Scenario& s) { return s.trace.workloads.active(); },
           with_workloads,
           false,
           true},
          {"resample",
           "the kept jobs drawn anew by seed: with replacement, or over the list's submit times",
           {{"resample.method", "bootstrap | arrival-order"}},
           parse_resample_block,
           [](const Scenario& s) { return s.trace.resample != ResampleMethod::kNone; },
           resampled,
           true},
          {"inflation",
           "a snapshot list re-sampled into arrivals in time at a target load",
           {{"inflation.load", "target load of the cluster"},
            {"inflation.jobs", "arrivals to draw (default: as many as the list has)"},
            {"inflation.max_runtime_s", "clip runtimes at this length"},
            {"inflation.cluster_gpus",
             "GPUs the load is measured against (default: the cluster's)"}},
           parse_inflation_block,
           [](const Scenario& s) { return s.trace.inflation.load > 0; },
           inflated},
          {"load_factor",
           "arrival rate x k, by compressing submit times",
           {{"load_factor", "k (1: as read)"}},
           parse_load_factor,
           [](const Scenario& s) { return s.trace.load_factor != 1.0; },
           compressed},
          {"integer_seconds",
           "whole-second times, as the PAI 2020 simulator reads them",
           {{"integer_seconds", "true: round submit times and durations"}},
           parse_integer_seconds,
           [](const Scenario& s) { return s.trace.integer_seconds; },
           whole_seconds},
          {"arrival_batches",
           "jobs submitted in batches at fixed intervals",
           {{"arrival_batches.jobs", "jobs per batch"},
            {"arrival_batches.every_s", "seconds between batches"}},
           parse_arrival_batches_block,
           [](const Scenario& s) { return s.trace.batch_jobs > 0; },
           batched},
          // Completes the trace's service columns with the `services` section (and clears what
          // other sources leave), before memory profiles are drawn.
          {"services",
           "inference services: the `services` section's columns for service rows",
           {},
           nullptr,
           [](const Scenario&) { return true; },
           with_services,
           false,
           true},
          {"memory_profiles",
           "each job's memory over its run, drawn from a profile library",
           {},
           nullptr,
           [](const Scenario& s) { return !s.trace.memory_profiles.empty(); },
           with_profiles},
          {"kernel_lengths",
           "fixed kernel and gap lengths (benchmark loops) instead of exponential ones",
           {{"kernel_lengths", "exponential | fixed"}},
           parse_kernel_lengths,
           [](const Scenario& s) { return s.trace.fixed_kernel_lengths; },
           fixed_kernels},
      });
  return table;
}

void check_trace_transforms(const Scenario& scenario, JsonObject& trace) {
  // Inflation draws its arrivals with replacement and gives them new submit times already:
  // resampling its list first would draw twice, and its arrival order is already drawn.
  if (scenario.trace.resample != ResampleMethod::kNone && scenario.trace.inflation.load > 0) {
    throw InputError(trace.where("resample"), "resample",
                     "cannot be combined with trace.inflation, which already draws its jobs "
                     "by seed (with replacement, at new arrival times); give one of them");
  }
}

}  // namespace gpumux
