// `gpumux calibrate replay check`: simulates the trace a real GPU replayed (gpumux-probe
// replay, replay_rows.h) on one GPU of that device, under the same mode, with the calibrated
// models, and compares job by job: how each ended (completed, out of memory, its own fault,
// torn down by a neighbour's) and its JCT.
//
// The simulated experiment is the replay's: one node with one GPU of `device`, the `mode`
// model (with `calibration` when given) admitting every job at its submit time (`admission:
// replicas` with 48 replicas, MPS clients uncapped: the replay had no scheduler to hold a job
// back, so a job that does not fit fails its allocation instead of waiting), fixed kernel
// lengths (the probe's kernels all last kernel_us), no retries (a killed process is gone), and
// the replay's injected faults (`faults.inject`, at fault_after_s after the job's start).
// Each job's sm_util is the duty its loop measured alone (kernel_us x alone_kernels_per_s),
// as `calibrate overlap check` takes an overlap row's alone_duty.
#pragma once

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "calibrate/replay/replay_rows.h"

namespace gpumux::calibration {

struct ReplayCheckOptions {
  std::string measured;  // replay.csv
  std::string trace;     // the native trace that was replayed
  std::string mode;      // empty: the file's; else must be the file's
  std::string
      calibration;      // calibration file (gpumux calibrate overlap fit); empty: model defaults
  std::string device;   // device profile; empty: the file's
  std::string out_dir;  // also write the simulated run there; empty: no files
};

struct ReplayJobComparison {
  std::string job;
  ReplayOutcome measured = ReplayOutcome::kFailed;
  ReplayOutcome simulated = ReplayOutcome::kFailed;
  std::string simulated_note;   // e.g. a rejection's reason; empty when none
  double measured_jct_s = NAN;  // NaN: never ended
  double simulated_jct_s = NAN;
  // (simulated - measured) / measured JCT when both completed, else NaN.
  double relative_error = 0;
  bool outcome_match = false;
};

struct ReplayComparison {
  std::string mode, device, calibration;  // calibration: the file, or empty for defaults
  std::vector<ReplayJobComparison> jobs;  // in the trace's order
  int outcomes_identical = 0;
  int compared = 0;  // jobs completed in both (the JCT statistics' count)
  double median_abs_error = 0, p95_abs_error = 0, max_abs_error = 0, mae = 0;  // 0 if none
  std::vector<std::string> notes;  // what the reader should know (late starts, ...)
};

// Throws InputError for bad input: the measurement file (replay_rows.h), a trace that is not
// the replayed one (a job missing on either side, another submit time), an unknown device,
// a mode other than the file's.
ReplayComparison compare_replay(const ReplayCheckOptions& options);

// The table, a line per outcome mismatch summary and the JCT statistics; its LAST line is
// exactly "MAE <value>" (mean absolute relative JCT error over jobs completed in both; "MAE
// n/a" when there is none). `csv`: one row per job instead of the table, the rest as
// '#' comments.
void print_replay_comparison(const ReplayComparison& c, const ReplayCheckOptions& options, bool csv,
                             std::ostream& out);

}  // namespace gpumux::calibration
