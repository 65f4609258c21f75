// Reading a calibration file: the fitted parameters of the sharing models, checked against the
// model that reads them, since a parameter such as `interference` means different things in
// different models. One format, written by `gpumux calibrate fit` (measured kernel overlap on a
// GPU) and by `gpumux colocation fit` (co-located training pairs):
//     {"format": "gpumux-calibration", "device": "H200-141GB", "source": ...,
//      "models": {"timeslice": {"params": {...}, "fixed": [...], "residuals": {...}},
//                 "mps": {...}, "mig": {...}}}
// "fixed" names parameters the fit held at an assumed value (co-location fits keep the driver's
// slice): they are not read as measured. Files of the earlier co-location layout,
//     {"model": "timeslice", "params": {...}, ...},
// are still read.
#pragma once

#include <optional>
#include <string>

namespace gpumux {

struct Calibration {
  std::string file;
  std::string device;  // the device measured; empty when the file does not say
  double interference = 0.0;
  double switch_cost_us = 0.0;          // time-slicing fits only
  std::optional<double> time_slice_us;  // time-slicing: the shortest slice the data supports
  std::optional<double> launch_gap_us;  // launch + synchronise gap between kernels
  // MIG job-speed fits (`gpumux calibrate fit --mode mig`): the fitted form's kernel width
  // (models/mig/instance_rate.h).
  std::optional<double> width_base;
  std::optional<double> width_per_bandwidth;
};

// Throws InputError naming the file and field when it cannot be read, holds no fit for
// `model`, or lacks a value.
Calibration read_calibration(const std::string& file, const std::string& model);

// The device a calibration file says it was measured on ("" when it does not say). Throws
// InputError when the file cannot be read as JSON.
std::string calibration_device(const std::string& file);

// The warning for a calibration measured on `measured` applied to `applied` (a scenario's
// cluster device, or the device of the measurements it is checked against); "" when they are
// the same device or the file names none. `where` names the calibration's setting.
std::string calibration_device_warning(const std::string& file, const std::string& measured,
                                       const std::string& applied, const std::string& where);

}  // namespace gpumux
