// Command line of gpumux-probe: what to measure, where to write it, and the time budget.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpumux::calibration {

struct ProbeOptions {
  std::string out_dir = "out/calibration";
  int device = 0;                      // CUDA device index
  double budget_s = 300;               // wall-clock limit for the whole run, seconds
  bool quick = false;                  // small default lists and a short window
  std::vector<double> kernel_us;       // spin-kernel lengths alone, microseconds
  std::vector<double> sm_share;        // share of the SMs a kernel occupies, in (0, 1]
  std::vector<double> duty;            // nominal busy fraction, in (0, 1]
  std::vector<int> active_thread_pct;  // MPS caps measured besides 100, in [1, 99]
  std::vector<std::string> modes;      // "timeslice", "mps"
  int mixed_pairs = 6;                 // mixed (different members) sets per mode
  int mixed_triples = 3;
  double warmup_s = 0.2;     // looping before the counted window
  double window_s = 0.5;     // counted window
  bool containment = true;   // memory and fault containment tests
  bool dry_run = false;      // print the plan, touch no GPU
  int assume_sms = 132;      // SM count for --dry-run
  uint64_t seed = 1;         // picks the mixed sets
  std::string command_line;  // as typed, for the sidecar
};

// The parsed command line; `help` set means print `help_text` and exit 0.
struct ParsedCommandLine {
  bool help = false;
  std::string help_text;
  ProbeOptions options;
};

// Parses argv (argv[0] is the program). Fills the lists left empty with the defaults (the
// --quick ones with --quick). Throws InputError naming the option for a bad value.
ParsedCommandLine parse_probe_command_line(int argc, const char* const* argv);

}  // namespace gpumux::calibration
