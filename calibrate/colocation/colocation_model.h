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
#include "calibrate/colocation/config_factors.h"
#include "models/timeslice/timeslice_params.h"

namespace gpumux::calibration {

enum class ModelKind {
  kTimeslice,     // the fitted time-slicing model
  kNone,          // baseline: sharing costs nothing, speed 1
  kProportional,  // baseline: if utilizations sum above 1, each gets 1 / sum
  kMps,           // the fitted MPS model: concurrent kernels (models/mps/mps_rates.h); the
                  // mapped utilization serves as both duty cycle and SM share, and the
                  // interference term is fitted; switch cost and kernel length play no part
};

// The fitted models are the sharing models with a contention form (models/registry.h): the
// time-slicing one is kTimeslice, the concurrent one kMps.
// Throws InputError("--model", "model", ...) listing the valid names.
ModelKind parse_model(const std::string& name);
const char* model_name(ModelKind kind);
// Every name parse_model takes, sorted: the fitted models and the two baselines.
std::vector<std::string> pair_model_names();
// The model fitted when none is named: the time-slicing one.
const std::string& default_pair_model();

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

// The model's rates for every pair (all matched), in order.
std::vector<std::pair<double, double>> predict_pairs(ModelKind kind, const ColocationParams& params,
                                                     const std::vector<const Pair*>& pairs);

// Mean absolute error over both jobs of every matched pair in `pairs`; with `factors`, of the
// rates with the per-config factors applied (config_factors.h).
double mean_abs_error(ModelKind kind, const ColocationParams& params,
                      const std::vector<const Pair*>& pairs,
                      const ConfigFactors* factors = nullptr);

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
  // With per-config factors (config_factors.h) fitted in every fold on its training pairs on top
  // of that fold's model fit; 0 unless asked for.
  double timeslice_factors_mae = 0.0, mps_factors_mae = 0.0;
};

// How pairs are split into folds.
enum class FoldGroups : std::uint8_t {
  kPairs,    // pairs shuffled and dealt into folds: a config's other pairs may be trained on
  kConfigs,  // configs shuffled and dealt into folds; fold f tests every pair with a config in
             // f and trains only on pairs with neither config in f, so no tested pair shares a
             // config with a training pair on that side (a pair whose configs sit in two folds
             // is tested twice, once per fold)
};

// Throws InputError("--cv-groups", ...) listing the valid names.
FoldGroups parse_fold_groups(const std::string& name);

// k-fold cross-validation: pairs (or configs, see FoldGroups) shuffled with `seed` (portable),
// fitted on the training part of each fold and scored on its test part. The baselines have
// nothing to fit; their MAE is over the same tested pairs.
CrossValidation cross_validate(const std::vector<const Pair*>& pairs, int folds, std::uint64_t seed,
                               FoldGroups groups = FoldGroups::kPairs, bool with_factors = false);

// The folds of several sources of pairs ([source][fold]): with kPairs each source's pairs are
// shuffled and dealt on their own (every pair tested in exactly one fold, trained on in the
// others); with kConfigs the configs of all sources are dealt into the same folds (above).
// Precondition: folds >= 2, every pair matched.
struct FoldSplit {
  std::vector<const Pair*> train, test;
};
std::vector<std::vector<FoldSplit>> fold_splits(
    const std::vector<std::vector<const Pair*>>& sources, int folds, std::uint64_t seed,
    FoldGroups groups);

// Several sources of pairs (e.g. Lucid and Gavel), folded together: with kConfigs the configs of
// every source are dealt into the same folds, with kPairs each source's pairs are dealt on their
// own. For each training choice (each source alone, then all of them) and each fold, timeslice
// and mps are fitted on that choice's training pairs and scored on the fold's test pairs of
// every source, so a source never trained on is scored on all its pairs (transfer).
struct SourceScore {
  std::string train;  // a source's name, or "all"
  std::string test;   // a source's name
  int jobs = 0;       // job speeds scored
  double timeslice_mae = 0.0, mps_mae = 0.0, none_mae = 0.0, proportional_mae = 0.0;
  double timeslice_factors_mae = 0.0, mps_factors_mae = 0.0;  // as in CrossValidation
};
// Preconditions: names.size() == sources.size() >= 1, every pair matched, configs of different
// sources distinct. Rows ordered by training choice, then test source.
std::vector<SourceScore> cross_validate_sources(
    const std::vector<std::vector<const Pair*>>& sources, const std::vector<std::string>& names,
    int folds, std::uint64_t seed, FoldGroups groups, bool with_factors = false);

nlohmann::json to_json(const ColocationParams& p);
// `where` is the JSON pointer of `j` ("file#/params"). Throws InputError(where + "/field",
// field, ...) for a missing, non-numeric or out-of-range field.
ColocationParams params_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace gpumux::calibration
