// Runs one scenario end to end: builds the cluster, model, scheduler and job source, replays
// the trace, and writes summary.json, jobs.csv and timeseries.csv (and report.html when asked)
// into the output folder as a whole (output_folder.h): a failed or stopped run leaves the folder
// as it was, and a second run into a folder in use fails at once.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/metrics/expectations.h"
#include "analysis/metrics/llm_cdfs.h"
#include "analysis/run/rejection_tally.h"
#include "scenarios/scenario.h"
#include "sim/engine/engine.h"

namespace gpumux {

class TraceCache;
class OutputFolder;

struct RunOptions {
  bool write_outputs = true;
  std::ostream* progress = nullptr;  // periodic progress lines on long runs, or none
  bool html_report = false;          // also report.html in the output folder (needs write_outputs)
  // Check the simulation's invariants as it runs (sim/invariants/invariant_checker.h,
  // sim/invariants/engine_invariants.h); a break throws InvariantViolation. Also on whenever the
  // environment variable GPUMUX_CHECK_INVARIANTS is set to anything but "" or "0" (the test
  // suite sets it), so that every run of a test is checked.
  bool check_invariants = false;
  // Read the trace through this cache (analysis/run/trace_cache.h): a command that runs one
  // trace many times reads it once. Null: read the file. Outputs are the same either way.
  TraceCache* trace_cache = nullptr;
  // Further observers of the run's events, after the run's own (e.g. `calibrate replay-check`
  // following each job's end and its cause). They must outlive the call.
  std::vector<EngineObserver*> observers;
  // Leave the written folder uncommitted in RunReport::pending (DIR untouched until its
  // commit()): a command running several scenarios commits them all only when every one
  // succeeded, so that an error leaves nothing written (`check --out`).
  bool defer_commit = false;
};

// Whether GPUMUX_CHECK_INVARIANTS asks for invariant checks (see RunOptions::check_invariants).
bool invariant_checks_from_environment();

struct RunReport {
  nlohmann::json summary;           // exactly what summary.json holds
  std::vector<BoundResult> expect;  // the scenario's `expect` bounds, checked (also in summary)
  EngineStats engine;
  // The rejected jobs by reason (not in the summary, which counts them as jobs.rejected).
  std::vector<RejectionCount> rejected_by_reason;
  // Every LLM endpoint's TTFT and TPOT CDFs (not in the summary, which keeps percentiles).
  std::vector<LlmEndpointCdfs> llm_cdfs;
  double wall_seconds = 0.0;  // not in the summary: outputs must be byte-identical across runs
  std::string out_dir;
  // With RunOptions::defer_commit: the written, uncommitted output folder (null otherwise).
  std::shared_ptr<OutputFolder> pending;
};

// Throws InputError for bad trace rows and for `expect` bounds on unknown metrics (no output
// files are left behind).
RunReport run_scenario(const Scenario& scenario, const RunOptions& options = {});

// What `gpumux run` prints of a report: analysis/run/summary_table.h.

}  // namespace gpumux
