// The stages between a scenario's trace and the engine, in one table (registry.cc), in the
// order they wrap the reader: each entry's scenario key, the parameters it declares, how the
// scenario's `trace` section reads its block, when a run has it, and how it wraps the source
// before it. The run (analysis/run/trace_pipeline.h) opens the trace and wraps it with every
// active entry in table order; the trace section (scenarios/sections/trace_section.cc) reads
// every block through its entry. It is the only list of them.
//
// The order is the pipeline's contract: the filter first (every later stage sees the trace as
// if it held only the kept rows), the workloads before any stage copies jobs, resampling and
// inflation before the stages that rewrite submit times, whole seconds before batches (the
// batch ranking sees rounded times), services before memory profiles (a service's profile is
// drawn for its completed row).
//
// To add a transform: its source in this folder (as load_factor_source.*), its settings in
// TraceConfig (scenarios/scenario.h), and one entry of the table.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.h"
#include "sim/base/json_fields.h"
#include "sim/base/registry.h"
#include "sim/core/job_source.h"

namespace gpumux {

// What a transform's block is read from: the scenario's `trace` object, its folder (relative
// paths), the scenario filled so far (its devices, its input files) and the section's echo.
struct TransformParseInputs {
  Scenario& scenario;
  JsonObject& trace;
  const std::string& base_dir;
  nlohmann::json& echo;  // s.resolved["trace"]: what a block gives, defaults filled in
};

// What a transform wraps its inner source with. Everything outlives the source it makes.
struct TransformWrapInputs {
  const Scenario& scenario;
  // How errors about the trace as a whole name it: its file, or the scenario's generator.
  const std::string& trace_name;
};

struct TransformParameter {
  std::string_view key;      // under `trace`, dotted inside the block ("inflation.load")
  std::string_view meaning;  // one line
};

struct TraceTransformInfo {
  std::string_view name;  // the scenario key under `trace` (or the section) that turns it on
  std::string_view summary;
  std::vector<TransformParameter> parameters;
  // Reads the block (marking its keys as known, or allowing them when absent) into
  // scenario.trace and its echo. Null: read elsewhere (the `services` section; the trace
  // section reads trace.memory_profiles with the job fields, before the transforms).
  void (*parse)(TransformParseInputs& in);
  bool (*active)(const Scenario& scenario);
  std::unique_ptr<JobSource> (*wrap)(JobSource& inner, const TransformWrapInputs& in);
  // Part of the typical workload of the FGD fragmentation measure (the jobs the run sees, drawn
  // as the run draws them): the share view reads the trace through these stages only.
  bool shapes_typical_jobs = false;
  // Decides which of the trace's rows the run keeps, or refuses a row (a filter, a workload the
  // catalogue lacks, a service's fields): `validate --full` reads the trace through these
  // stages only, and counts what they keep.
  bool keeps_rows = false;
};

// Every entry, in pipeline order (find: the entry of a scenario key, or nullptr).
const Registry<TraceTransformInfo>& trace_transforms();

// The checks between blocks, once every block is read (trace.resample with trace.inflation).
void check_trace_transforms(const Scenario& scenario, JsonObject& trace);

}  // namespace gpumux
