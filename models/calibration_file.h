// Reading a calibration file: per model, the values a fit gave to that model's parameters, read
// through the model's own parameter specs, since a key such as `interference` means different
// things in different models. One format, written by `gpumux calibrate SOURCE fit`:
//     {"format": "gpumux-calibration", "device": "H200-141GB", "source": ...,
//      "models": {"timeslice": {"params": {KEY: VALUE, ...}, "fixed": [...], "residuals": ...},
//                 "mps": {...}, "mig": {...}}}
// that is a map model -> {key: value}. A model declares which of its parameters a fit can give
// (CalibrationKeys, beside its parameter declarations); each is range-checked by its spec.
// "fixed" names parameters the fit held at an assumed value (pairs fits keep the driver's
// slice): they are not read as measured. Files of the earlier pairs-fit layout,
//     {"model": "timeslice", "params": {...}, ...},
// are still read (their slice counts as fixed).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/base/parameter_spec.h"

namespace gpumux {

// A parameter a model takes from its fit: its spec (the key and the range the value is checked
// against) and what a fit without the key means.
struct CalibrationKey {
  const NumberSpec* spec = nullptr;
  // The value a fit that lacks the key stands for (a pairs fit without a switch cost measured
  // none); nullopt: the model's default stays.
  std::optional<double> when_missing = std::nullopt;
  bool required = false;  // a fit without the key is an error
};

// What a model declares about calibration files, beside its parameter declarations.
struct CalibrationKeys {
  std::string_view model;                     // its entry under "models"
  std::span<const CalibrationKey> fitted;     // the parameters a fit gives it
  std::span<const std::string_view> ignored;  // keys fits write that it does not take
};

struct Calibration {
  std::string file;
  std::string device;  // the device measured; empty when the file does not say
  // The fitted keys the file gives the model (or stands for, CalibrationKey::when_missing).
  std::map<std::string, double, std::less<>> values;

  // The value the file gives `spec`'s key, if any.
  std::optional<double> value(const NumberSpec& spec) const;
};

// Throws InputError naming the file and field when it cannot be read, holds no fit for the
// model, holds a key the model neither takes nor ignores, or a value out of its spec's range.
Calibration read_calibration(const std::string& file, const CalibrationKeys& keys);

// The `calibration` key of a model's `sharing.params` (marked as known either way): the file
// read for `keys`, or nullopt when the scenario names none.
std::optional<Calibration> read_calibration_param(JsonObject& p, const CalibrationKeys& keys);

// read(p, spec) where the calibration's value for the key (when it has one) replaces the
// default, with the source "calibration FILE"; an explicit key still overrides both.
NumberSetting read(JsonObject& p, const NumberSpec& spec,
                   const std::optional<Calibration>& calibration);

// The device a calibration file says it was measured on ("" when it does not say). Throws
// InputError when the file cannot be read as JSON.
std::string calibration_device(const std::string& file);

// The warning for a calibration measured on `measured` applied to `applied` (a scenario's
// cluster device, or the device of the measurements it is checked against); "" when they are
// the same device or the file names none. `where` names the calibration's setting.
std::string calibration_device_warning(const std::string& file, const std::string& measured,
                                       const std::string& applied, const std::string& where);

}  // namespace gpumux
