#include "calibrate/replay/replay_check_command.h"

#include <sstream>

#include "models/calibration_file.h"
#include "models/registry.h"
#include "sim/base/input_error.h"
#include "sim/base/terminal_text.h"

namespace gpumux::calibration {

void configure_replay_check(CLI::App& sub, ReplayCheckCommand& cmd) {
  ReplayCheckOptions& o = cmd.options;
  sub.add_option("measured", o.measured,
                 "replay.csv written by `gpumux-probe replay TRACE.csv` on a real GPU")
      ->required();
  sub.add_option("--trace", o.trace, "the native trace that was replayed")->required();
  sub.add_option("--mode", o.mode,
                 "timeslice or mps; must be the mode the file was measured under (default: the "
                 "file's)")
      ->check(CLI::IsMember(contention_model_names()));
  sub.add_option(
      "--calibration", o.calibration,
      "calibration file from `gpumux calibrate overlap fit` (default: the model's built-in "
      "defaults)");
  sub.add_option("--device", o.device,
                 "device profile to simulate (default: the file's device column, e.g. "
                 "H200-141GB)");
  sub.add_option("--out", o.out_dir,
                 "also write the simulated run (summary.json, jobs.csv, ...) into this folder");
  sub.add_option("--format", cmd.format, "table (default) or csv")
      ->check(CLI::IsMember({"table", "csv"}));
  sub.footer(
      "Simulates the replayed trace on one GPU of the measured device under the same mode\n"
      "(fixed kernel lengths, no retries, the replay's injected faults) and compares each\n"
      "job's outcome (completed, oom, fault, torn_down) and JCT. Last line: 'MAE <mean\n"
      "absolute relative JCT error over jobs completed in both>'. Measure first, on the GPU:\n"
      "  build/gpumux-probe replay calibrate/replay/traces/mixed_20.csv --mode mps --out r");
}

int run_replay_check(const ReplayCheckCommand& cmd, std::ostream& out, std::ostream& err) {
  try {
    const ReplayComparison c = compare_replay(cmd.options);
    // As `calibrate check` does (docs/limits.md): a calibration measured on another device than
    // the replay's is named on stderr.
    if (!cmd.options.calibration.empty()) {
      const std::string warning =
          calibration_device_warning(cmd.options.calibration,
                                     calibration_device(cmd.options.calibration), c.device,
                                     "--calibration");
      if (!warning.empty()) err << terminal_text(warning) << "\n";
    }
    std::ostringstream text;
    print_replay_comparison(c, cmd.options, cmd.format == "csv", text);
    out << text.str();
    return 0;
  } catch (const InputError& e) {
    err << "error: " << terminal_text(e.what()) << "\n";
    return 2;
  }
}

}  // namespace gpumux::calibration
