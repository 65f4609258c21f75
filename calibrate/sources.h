// The calibration sources: each kind of measurement the models are fitted to or checked
// against, with the verbs it offers (`gpumux calibrate SOURCE fit|check`). One table,
// registry.cc; `gpumux calibrate --help` lists it in its order.
//
// To add a source: its folder under calibrate/ (reading the measurements, the fit and/or the
// check), and one entry in the table naming the functions that add each verb's options.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/registry.h"

namespace gpumux::calibration {

using gpumux::Registry;

// What a verb does once its command line is parsed: writes its report on `out` (diagnostics on
// `err`) and returns the exit code (0 success, 2 bad input, the InputError message on `err`).
using VerbRun = std::function<int(std::ostream& out, std::ostream& err)>;

// Adds a verb's options to `sub` and returns what it runs; the run holds the options' storage.
using ConfigureVerb = VerbRun (*)(CLI::App& sub);

struct Verb {
  std::string_view summary;           // the line `gpumux calibrate SOURCE --help` prints
  ConfigureVerb configure = nullptr;  // nullptr: the source does not offer this verb
  explicit operator bool() const { return configure != nullptr; }
};

struct SourceInfo {
  std::string_view name;     // `gpumux calibrate NAME ...`
  std::string_view summary;  // one line: what was measured, and where such files come from
  Verb fit;                  // fits the models and writes a calibration file
  Verb check;                // measured against predicted, row by row; last line "MAE <value>"
};

// Every source, in listing order (a Registry, sim/base/registry.h: find, names_text, ...).
const Registry<SourceInfo>& calibration_sources();

}  // namespace gpumux::calibration
