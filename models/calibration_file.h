// Reading a calibration file written by `gpumux colocation fit` (params.json): the fitted
// parameters of one model, checked against the model that reads them, since a parameter such as
// `interference` means different things in different models.
#pragma once

#include <string>

namespace gpumux {

struct Calibration {
  std::string file;
  double interference = 0.0;    // params.interference
  double switch_cost_us = 0.0;  // params.switch_cost_us (time-slicing fits only)
};

// Throws InputError naming the file and field when it cannot be read, was fitted for another
// model than `model`, or lacks a value.
Calibration read_calibration(const std::string& file, const std::string& model);

}  // namespace gpumux
