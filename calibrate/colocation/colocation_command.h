// The `fit` and `predict` commands over measured co-location pairs (colocation_model.h).
//
//   fit     --single S.csv --pairs P.csv -o params.json [--folds 5] [--seed 42]
//           [--cv-groups pairs|configs] [--gavel gavel_simulation_throughputs.json]
//           Fits the time-slicing model's parameters on all matched pairs, writes them as JSON
//           (atomically), and prints the fit, the k-fold cross-validated MAE and the baselines.
//           With --gavel, Gavel's V100 pairs join as a second source for cross-validation only
//           (the written fit stays on --pairs): per-source MAE for each training choice
//           (lucid, gavel, all) and test source (colocation_model.h cross_validate_sources).
//           With --config-factors, also fits per-config factors on top of the model
//           (config_factors.h), writes them beside the params ("config_factors") and
//           cross-validates them (refitted in every fold; "timeslice_factors_mae", ...).
//   predict --single S.csv --pairs P.csv [--params params.json] [--model NAME] [--format F]
//           Prints each pair's measured and predicted speeds (csv, or json), then as its LAST
//           line "MAE <value>" over all predicted job speeds. Without --params the timeslice
//           model uses its unfitted defaults and says so on `err`. Per-config factors in the
//           params file are applied (and said on `err`) unless --no-config-factors.
// Pairs whose configs have no single row are never dropped silently: both commands report
// their count and lines on `err`, and predict lists them with status "unmatched".
// Return codes: 0 success, 2 bad input (the InputError message on `err`).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <ostream>
#include <string>

#include "calibrate/colocation/colocation_model.h"

namespace gpumux::calibration {

struct FitCommand {
  std::string single_csv, pairs_csv, out_json;
  std::string model = default_pair_model();  // or the concurrent one (mps)
  int folds = 5;
  std::uint64_t seed = 42;
  std::string cv_groups = "pairs";  // or "configs" (FoldGroups)
  std::string gavel_json;           // optional second source
  bool config_factors = false;      // also fit and cross-validate per-config factors
};

struct PredictCommand {
  std::string single_csv, pairs_csv, params_json, model = default_pair_model(), format = "csv";
  bool no_config_factors = false;  // ignore the params file's per-config factors
};

void configure_fit_command(CLI::App& sub, FitCommand& cmd);          // --single --pairs -o
void configure_predict_command(CLI::App& sub, PredictCommand& cmd);  // --single --pairs ...
int run_fit_command(const FitCommand& cmd, std::ostream& out, std::ostream& err);
int run_predict_command(const PredictCommand& cmd, std::ostream& out, std::ostream& err);

}  // namespace gpumux::calibration
