// `gpumux calibrate replay check MEASURED.csv --trace TRACE.csv [--mode timeslice|mps]
// [--calibration CAL.json] [--device NAME] [--format table|csv] [--out DIR]`: a trace replayed
// for real by `gpumux-probe replay` against the simulation of the same trace (replay_check.h).
// Return codes: 0 compared (mismatches are reported, not failed), 2 bad input (the InputError
// on `err`; nothing on `out`, no folder written).
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>

#include "calibrate/replay/replay_check.h"

namespace gpumux::calibration {

struct ReplayCheckCommand {
  ReplayCheckOptions options;
  std::string format = "table";
};

void configure_replay_check(CLI::App& sub, ReplayCheckCommand& cmd);
int run_replay_check(const ReplayCheckCommand& cmd, std::ostream& out, std::ostream& err);

}  // namespace gpumux::calibration
