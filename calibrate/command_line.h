// The `gpumux calibrate` command line, built from the table of sources (sources.h):
//   gpumux calibrate SOURCE fit|check ...
// and the older forms, which run the same functions and first say their new form on `err`:
//   calibrate fit|check [--mode timeslice|mps]  ->  calibrate overlap fit|check
//   calibrate fit|check --mode mig              ->  calibrate mig-speeds fit|check
//   calibrate replay-check                      ->  calibrate replay check
//   colocation fit|predict                      ->  calibrate pairs fit|check
// The older forms are left out of the help, which teaches the new one.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "calibrate/sources.h"

namespace gpumux::calibration {

// Called with the chosen verb's run once the command line is parsed.
using OnChosen = std::function<void(VerbRun)>;

// Adds every source (and under it its verbs) and the older `calibrate` forms to `calibrate`.
void configure_calibrate_command(CLI::App& calibrate, OnChosen chosen);

// The older `gpumux colocation fit|predict`.
void configure_colocation_command(CLI::App& colocation, OnChosen chosen);

}  // namespace gpumux::calibration
