// Command line of `gpumux-probe replay`: which trace, under which mode, where to write what
// the GPU did, and the time budget.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpumux::calibration {

struct ReplayFault {
  std::string job;     // a job of the trace
  double after_s = 0;  // seconds after the job's start (its memory allocated)
};

struct ReplayOptions {
  std::string trace;               // native CSV (or JSON Lines) trace, one GPU per job
  std::string mode = "timeslice";  // "timeslice" (the GPU's compute mode) or "mps"
  std::string out_dir = "out/replay";
  int device = 0;                   // CUDA device index
  double budget_s = 300;            // the whole replay's wall-clock limit, seconds
  double lead_s = 2;                // contexts are created this long before their submit time
  double alone_s = 0.3;             // counted window of each distinct loop measured alone
  std::vector<ReplayFault> faults;  // --fault JOB@SECONDS
  bool dry_run = false;             // print the plan, touch no GPU
  std::string command_line;         // as typed, for replay.json
};

struct ParsedReplayCommandLine {
  bool help = false;
  std::string help_text;
  ReplayOptions options;
};

// Parses `gpumux-probe replay ...` (argv[0] the program, argv[1] "replay"). Throws InputError
// naming the option for a bad value.
ParsedReplayCommandLine parse_replay_command_line(int argc, const char* const* argv);

}  // namespace gpumux::calibration
