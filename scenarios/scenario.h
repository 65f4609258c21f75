// A scenario: the cluster, the sharing model, the scheduler, the trace, the seed and the
// outputs of one run, read from a JSON file (docs/scenario-format.md "Scenario format").
//
// Parsing is strict: unknown keys, wrong types, unknown names and impossible values throw
// InputError naming the file, the JSON pointer and the field. Relative paths inside a scenario
// are relative to the scenario file's folder.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/expect_config.h"
#include "scenarios/input_file.h"
#include "scenarios/service_config.h"
#include "sim/core/device.h"
#include "sim/core/sharing_model.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "sim/scheduling/scheduler.h"
#include "sim/state/cluster.h"
#include "traces/fields/job_fields.h"
#include "traces/fields/memory_profile_library.h"
#include "traces/formats/generator.h"
#include "traces/transforms/filter_source.h"
#include "traces/transforms/inflation_source.h"
#include "traces/transforms/resample_source.h"
#include "traces/transforms/workload_source.h"

namespace gpumux {

struct TraceConfig {
  bool generated = false;
  std::string path;            // resolved file path (when not generated)
  std::string format = "csv";  // csv | jsonl | tiresias
  GeneratorSpec generator;     // when generated
  TraceDefaults defaults;
  MemoryProfileConfig memory_profiles;  // empty: every job uses its peak the whole time
  bool fixed_kernel_lengths = false;    // trace.kernel_lengths: "fixed" (default "exponential")
  // trace.integer_seconds (traces/transforms/integer_seconds_source.h): whole-second times as the
  // PAI 2020 simulator reads them.
  bool integer_seconds = false;
  // trace.load_factor (traces/transforms/load_factor_source.h): arrival rate x k, by
  // compressing submit times; 1: as read.
  double load_factor = 1.0;
  // trace.arrival_batches (traces/transforms/arrival_batch_source.h); 0 jobs: submit times as read.
  std::uint64_t batch_jobs = 0;
  Time batch_every = Time::from_seconds(60);
  // trace.inflation (traces/transforms/inflation_source.h): a snapshot list re-sampled into
  // arrivals at a target load; load 0: off.
  InflationConfig inflation;
  // trace.filter (traces/transforms/filter_source.h): only the matching jobs run, the others
  // counted; inactive: every job.
  JobFilter filter;
  // trace.resample (traces/transforms/resample_source.h): the kept jobs drawn anew by seed
  // (bootstrap, or arrival order); kNone: as read. Never together with inflation.
  ResampleMethod resample = ResampleMethod::kNone;
  // trace.catalogue and trace.workload_mix (docs/workload-catalogue.md): measured facts of the
  // workloads jobs name; inactive: none (workload names in the trace are then unused).
  WorkloadConfig workloads;
};

struct OutputConfig {
  std::string dir;
  Time timeseries_interval = Time::from_seconds(60);
  bool jobs_csv = true;
  bool timeseries_csv = true;
  // Job percentiles exact however many jobs finish; false: exact up to 100,000 finished jobs,
  // within 0.5 % past it (analysis/stats/quantile_sketch.h).
  bool exact_percentiles = false;
};

// The most GPUs a cluster may have (node groups or a nodes CSV): the simulator keeps a few
// hundred bytes of state per GPU (docs/limits.md "Limits on input"), so a million GPUs take a few
// hundred MB before the first job.
inline constexpr std::int64_t kMaxClusterGpus = 1'000'000;


struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  std::vector<DeviceProfile> devices;  // the device types the cluster uses
  std::vector<NodeSpec> nodes;
  // cluster.pool: one pooled node (sim/state/pool.h); `nodes` then holds that one node.
  std::optional<PoolSpec> pool;
  std::uint64_t skipped_node_rows = 0;  // nodes without GPUs in a nodes CSV (counted, reported)
  std::shared_ptr<const SharingModel> model;
  // scheduler.queue and scheduler.placement, resolved once by the scheduler section: entries
  // of queue_policies() (sim/scheduling/registry.h) and placement_policies()
  // (sim/placement/registry.h), the placement as the scenario's model takes its name
  // (resolve_placement). Never null.
  const QueuePolicyInfo* queue = &queue_policies().entries().front();        // fifo
  const PlacementInfo* placement = &placement_policies().entries().front();  // first-fit
  // Their parameters, read from `scheduler.params` (empty when it is absent).
  ParameterSet queue_params;
  ParameterSet placement_params;
  QueueOrder order = QueueOrder::kArrival;  // scheduler.order; kShortest only where it applies
  int backfill_depth = 64;
  int retry_limit = 3;                        // kills a job survives before it fails
  Time retry_delay = Time::from_seconds(10);  // wait before a killed job requeues
  // `faults.fatal_per_gpu_hour`: fatal GPU faults per hour of each running process (0: none).
  double fatal_faults_per_gpu_hour = 0.0;
  // `faults.inject`: faults at chosen instants (a replayed experiment's deliberate faults).
  std::vector<InjectedFault> injected_faults;
  TraceConfig trace;
  ServicesConfig services;  // inference services; `given` false when the scenario has none
  OutputConfig outputs;
  Time horizon = Time::infinity();
  std::vector<ExpectBound> expect;  // bounds on the run's metrics (`expect`); empty: none
  nlohmann::json resolved;          // the scenario echoed back with every default filled in
  std::vector<InputFile> input_files;  // in the order the sections name them
  // Warnings for stderr (the commands that run or validate a scenario print them): a
  // calibration measured on another device than the cluster's.
  std::vector<std::string> warnings;

  std::size_t gpu_count() const;
};

struct ScenarioOverrides {
  std::vector<std::string> sets;  // "path.to.key=value" (value parsed as JSON, else a string)
  std::optional<std::uint64_t> seed;
  std::optional<std::string> out_dir;
};

// Reads, overrides and validates a scenario file. Throws InputError.
Scenario load_scenario(const std::string& path, const ScenarioOverrides& overrides = {});

// load_scenario for a document already in memory (the Python package's scenarios given as
// dicts), named `file` in messages, its paths resolved against `base_dir`.
Scenario scenario_from_document(nlohmann::json document, const std::string& file,
                                const std::string& base_dir,
                                const ScenarioOverrides& overrides = {});

// Validates a scenario already parsed from `file` (paths resolved against `base_dir`).
Scenario parse_scenario(const nlohmann::json& document, const std::string& file,
                        const std::string& base_dir);

// Applies one "path=value" override to `document`. Throws InputError for a malformed override.
void apply_override(nlohmann::json& document, const std::string& assignment);

}  // namespace gpumux
