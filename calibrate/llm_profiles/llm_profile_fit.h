// The fit of the LLM performance model's efficiencies (models/llm/roofline_time_model.h) on
// measured operator profiles (llm_profile_data.h), one group of parameters per operator class:
// a least-squares fit of log(predicted / measured) by Nelder-Mead over the logarithms of the
// group's parameters, from the stated defaults, restarted from its best point until it stops
// improving. Deterministic: no random starts, the points in file order.
//
// Cross-validation: the class's distinct hold-out counts (tokens; the chunk for prefill
// attention; the KV length per sequence for decode attention) are sorted and every 5th (the
// 3rd, 8th, ...) is held out; the group is fitted on the rest and its error measured on the
// held-out points.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "calibrate/llm_profiles/llm_profile_data.h"
#include "models/llm/roofline_time_model.h"

namespace gpumux::calibration {

// |predicted / measured - 1| over a set of points.
struct LlmErrorStats {
  int points = 0;
  double median = 0.0, p90 = 0.0, max = 0.0, mean = 0.0;
};
LlmErrorStats llm_error_stats(std::vector<double> abs_relative_errors);

struct LlmClassFit {
  LlmOpClass cls = LlmOpClass::kGemm;
  std::vector<std::string> parameters;  // the group's parameters (fitted or, if not, stated)
  bool fitted = false;                  // false: too few points, the defaults kept
  LlmErrorStats error;                  // with the fit on every point
  LlmErrorStats held_out;               // cross-validation (points 0 when not fitted)
  // The held-out errors by tensor-parallel degree of the profiled shape, ascending.
  std::vector<std::pair<int, LlmErrorStats>> held_out_by_tp;
};

struct LlmProfileFit {
  LlmEfficiency efficiency;          // the start with the fitted groups replaced; `fitted` filled
  std::vector<LlmClassFit> classes;  // every class with points, in LlmOpClass order
};

// Predictions of every point of `data` with `efficiency` on a device of `peaks`.
std::vector<double> predict_llm_profiles(const LlmProfileData& data, const LlmDevicePeaks& peaks,
                                         const LlmEfficiency& efficiency);

// Fits every group that has enough points; the others keep `start`'s values (not fitted).
// `cross_validate` false skips the held-out fits (faster; held_out stays empty).
LlmProfileFit fit_llm_profiles(const LlmProfileData& data, const LlmDevicePeaks& peaks,
                               const LlmEfficiency& start, bool cross_validate = true);

// The same fit on the points `use` selects (true = used), for tests and cross-validation.
LlmEfficiency fit_llm_points(const LlmProfileData& data, const std::vector<bool>& use,
                             const LlmDevicePeaks& peaks, const LlmEfficiency& start);

}  // namespace gpumux::calibration
