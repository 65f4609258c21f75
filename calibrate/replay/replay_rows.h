// What `gpumux-probe replay` measured: one row per job of a replayed trace, as a real GPU ran
// it (calibrate/probe/replay_runner.h), in replay.csv. Written by the probe and read by
// `gpumux calibrate replay check` (replay_check.h), so both sides share this one schema:
//
//   mode,job,device,submit_s,ready_s,start_s,end_s,jct_s,outcome,error,kernels_done,
//   kernels_planned,alone_kernels_per_s,fault_after_s
//
// Times are seconds of the trace's clock (its time 0 is the replay's common start plus the lead
// given for creating contexts, so ready_s may be negative); NaN, written as an empty cell, where
// the instant never came.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "traces/formats/trace_source.h"

namespace gpumux::calibration {

// How a replayed job ended.
enum class ReplayOutcome : std::uint8_t {
  kCompleted,   // ran every planned kernel
  kOom,         // its own allocation of its footprint failed
  kFault,       // it launched the injected faulting kernel (--fault)
  kTornDown,    // a kernel failed while it looped: another process's fault reached it
  kUnfinished,  // still running at the replay's deadline (killed)
  kFailed,      // anything else (no context, the process died): see `error`
};

const char* replay_outcome_name(ReplayOutcome o);

struct ReplayRow {
  std::string mode;      // "timeslice" or "mps"
  std::string job;       // the trace's id
  std::string device;    // device profile name (H200-141GB, ...) or the CUDA name
  double submit_s = 0;   // the trace's submit time
  double ready_s = NAN;  // its context created
  double start_s = NAN;  // its memory allocated, about to launch the first kernel
  double end_s = NAN;    // its last kernel done, or the instant it failed
  ReplayOutcome outcome = ReplayOutcome::kFailed;
  std::string error;  // the CUDA error (or why it failed), empty when none
  std::int64_t kernels_done = 0;
  std::int64_t kernels_planned = 0;  // runtime_s x alone_kernels_per_s, at least 1
  double alone_kernels_per_s = 0;    // its loop alone on this GPU, in this mode
  double fault_after_s = NAN;        // its injected fault, seconds after start_s; NaN: none
  int line = 0;                      // line in the file read (0 when not read)

  // end_s - submit_s, or NaN when it never ended.
  double jct_s() const { return end_s - submit_s; }
};

// Opens the trace a replay runs (native CSV, or JSON Lines for a path ending in .jsonl or
// .jsonl.gz) with the built-in defaults, as both the probe and replay-check read it.
std::unique_ptr<TraceSource> open_replay_trace(const std::string& path);

void write_replay_csv(const std::vector<ReplayRow>& rows, std::ostream& out);
// Throws InputError naming the file, line and column for a missing column, a malformed cell,
// an unknown outcome or mode, a repeated job, rows of more than one mode, or no row at all.
std::vector<ReplayRow> read_replay_csv(const std::string& path);

}  // namespace gpumux::calibration
