// The jobs a run sees: the scenario's trace (or its generator), read through the stages of the
// table of trace transforms (traces/transforms/registry.h) that the scenario turns on, in
// table order. The run reads its jobs from here, and so does the share view's typical workload
// (the same trace read once more, through the stages that shape which jobs there are).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.h"
#include "sim/core/job_source.h"
#include "sim/placement/share_view.h"
#include "traces/formats/trace_source.h"

namespace gpumux {

class TraceCache;

// How errors about the trace as a whole name it: its file, or the scenario's generator.
std::string trace_name(const Scenario& scenario);

class TracePipeline {
 public:
  // Which stages wrap the reader.
  enum class Stages {
    kAll,          // every active entry: the run's jobs
    kTypicalJobs,  // those marked shapes_typical_jobs: which jobs there are, drawn as the run
    kKeptRows,     // those marked keeps_rows: which rows the run keeps (validate --full)
  };
  // Opens the scenario's trace, through `cache` when there is one.
  TracePipeline(const Scenario& scenario, TraceCache* cache, Stages stages = Stages::kAll);

  // The last stage: the jobs in order.
  JobSource& jobs() { return *stages_.back(); }
  // The trace's reader, or null when the scenario's generator makes the jobs.
  const TraceSource* trace() const { return trace_; }
  // The names of the transforms wrapping the reader (their table entries'), innermost first.
  const std::vector<std::string_view>& transform_names() const { return names_; }
  // The stage of type T (a transform's source, e.g. FilteringSource), or null when the
  // scenario does not turn it on.
  template <class T>
  const T* stage() const {
    for (const auto& s : stages_) {
      if (const auto* found = dynamic_cast<const T*>(s.get())) return found;
    }
    return nullptr;
  }

 private:
  std::string name_;  // outlives the stages, which keep it for their errors
  std::vector<std::unique_ptr<JobSource>> stages_;  // the reader first
  const TraceSource* trace_ = nullptr;
  std::vector<std::string_view> names_;
};

// The scenario's jobs counted by kind, for the typical jobs of the FGD fragmentation measure:
// the trace is read once more, ahead of the run, holding one count per distinct kind. The
// typical jobs are those the run will see: the kept ones, drawn as the run draws them.
JobKindCounts typical_job_kinds(const Scenario& scenario, TraceCache* cache);

// Throws InputError when the trace gave no job (header only, or every row skipped): a run of no
// jobs measures nothing. Generated jobs always pass.
void require_jobs(const TracePipeline& pipeline, const Scenario& scenario);
// The same check on a trace already read to its end (`path`: the scenario's trace, named in the
// error with the skipped rows' reasons); `validate --full` makes it as run does.
void require_trace_jobs(const TraceSource& trace, const std::string& path);

}  // namespace gpumux
