// Predicting the speed of two training jobs sharing one GPU from their solo measurements, with
// the time-slicing rate model (models/timeslice) and two baselines; fitting its free parameters
// to measured pairs by least squares, and cross-validating.
//
// Mapping of a single config to the time-slicing model's inputs (the data has no kernel
// lengths and no exact duty cycle):
//   sm_util        = clamp(util_scale * (gpu_util / 100)^util_exponent, 0.01, 1), both fitted.
//                    nvidia-smi's utilization is the share of sample periods in which any
//                    kernel ran; it is not the share of the GPU a co-runner competes for (a
//                    light job's kernels leave most SMs idle and overlap with a co-runner's
//                    more than they queue behind them), so the mapping is calibrated.
//   mean_kernel_us = kernel_us, the same for every config, NOT fitted (100 us assumption): the
//                    data has no kernel lengths and cannot separate them from the switch cost.
//   switch cost    = switch_cost_us (fitted); slice = 1024 us (driver default, not fitted).
//   interference   = interference (fitted): kernels slow by (1 + interference * co-runner's
//                    sm_util), standing for cache and bandwidth contention.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/colocation/colocation_data.h"
#include "models/timeslice/timeslice_params.h"

namespace gpumux::colocation {

enum class ModelKind {
  kTimeslice,     // the fitted time-slicing model
  kNone,          // baseline: sharing costs nothing, speed 1
  kProportional,  // baseline: if utilizations sum above 1, each gets 1 / sum
  kMps,           // the fitted MPS model: concurrent kernels (models/mps/mps_rates.h); the
                  // mapped utilization serves as both duty cycle and SM share, and the
                  // interference term is fitted; switch cost and kernel length play no part
};

// Throws InputError("--model", "model", ...) listing the valid names.
ModelKind parse_model(const std::string& name);
const char* model_name(ModelKind kind);

struct ColocationParams {
  double util_scale = 1.0;                       // no correction until fitted
  double util_exponent = 1.0;                    // no correction until fitted
  double switch_cost_us = kDefaultSwitchCostUs;  // assumption until fitted (timeslice_params.h)
  double kernel_us = 100.0;                      // assumption until fitted
  double interference = 0.0;                     // pure time-slicing until fitted
  double time_slice_us = kDefaultTimeSliceUs;    // driver default, never fitted
};

// Speeds (relative to alone) of two jobs sharing a GPU.
std::pair<double, double> predict_pair(ModelKind kind, const ColocationParams& params,
                                       const SingleConfig& a, const SingleConfig& b);

// Mean absolute error over both jobs of every matched pair in `pairs`.
double mean_abs_error(ModelKind kind, const ColocationParams& params,
                      const std::vector<const Pair*>& pairs);

struct FitReport {
  ColocationParams params;
  double rms = 0.0;  // root mean square residual at the optimum, over job speeds
  int iterations = 0;
};

// Levenberg-Marquardt (Eigen, forward-difference Jacobian) on util_scale, util_exponent,
// switch_cost_us and interference (bounded by projection), from a few starting points.
// Precondition: pairs non-empty and all matched.
FitReport fit_timeslice(const std::vector<const Pair*>& pairs);
// The same fit for `kind` (kTimeslice or kMps; for kMps the switch cost is not used).
FitReport fit_model(ModelKind kind, const std::vector<const Pair*>& pairs);

struct CrossValidation {
  int folds = 0;
  std::uint64_t seed = 0;
  int jobs = 0;  // job speeds predicted (2 per matched pair)
  double timeslice_mae = 0.0, none_mae = 0.0, proportional_mae = 0.0;
  double mps_mae = 0.0;  // the MPS model, refitted in every fold like timeslice
};

// k-fold cross-validation: pairs shuffled with `seed` (portable), fitted on k-1 folds and scored
// on the held-out one. The baselines have nothing to fit; their MAE is over the same pairs.
CrossValidation cross_validate(const std::vector<const Pair*>& pairs, int folds,
                               std::uint64_t seed);

nlohmann::json to_json(const ColocationParams& p);
// `where` is the JSON pointer of `j` ("file#/params"). Throws InputError(where + "/field",
// field, ...) for a missing, non-numeric or out-of-range field.
ColocationParams params_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace gpumux::colocation
