// The studies' commands, whose options and runs live in their folders: `pack`
// (packing/pack_command.h), `colocation fit|predict` (calibrate/colocation/colocation_command.h),
// `calibrate fit|check` (calibrate/overlap/calibrate_command.h) and `calibrate replay-check`
// (calibrate/replay/replay_check_command.h).
#include "apps/command_options.h"
#include "calibrate/colocation/colocation_command.h"
#include "calibrate/overlap/calibrate_command.h"
#include "calibrate/replay/replay_check_command.h"
#include "packing/pack_command.h"

namespace gpumux {

void configure_pack_command(CLI::App& pack, CommandContext& ctx) {
  auto a = std::make_shared<packing::PackCommand>();
  packing::configure_pack_command(pack, *a);
  set_action(pack, ctx, a, packing::run_pack_command);
}

void configure_colocation_command(CLI::App& coloc, CommandContext& ctx) {
  coloc.require_subcommand(1);
  auto* fit = coloc.add_subcommand("fit", "fit the model's free parameters by least squares");
  auto fit_args = std::make_shared<colocation::FitCommand>();
  colocation::configure_fit_command(*fit, *fit_args);
  set_action(*fit, ctx, fit_args, colocation::run_fit_command);
  auto* predict = coloc.add_subcommand("predict", "predicted vs measured speeds, then MAE");
  auto predict_args = std::make_shared<colocation::PredictCommand>();
  colocation::configure_predict_command(*predict, *predict_args);
  set_action(*predict, ctx, predict_args, colocation::run_predict_command);
}

void configure_calibrate_command(CLI::App& calibrate, CommandContext& ctx) {
  calibrate.require_subcommand(1);
  calibrate.footer(
      "Calibrate your own GPU in three commands:\n"
      "  build/gpumux-probe --out meas --budget-s 300          # on the GPU machine\n"
      "  gpumux calibrate fit meas/overlap.csv -o cal.json\n"
      "  gpumux calibrate check meas/overlap.csv --calibration cal.json\n"
      "then use it in a scenario: \"sharing\": {\"model\": \"mps\", \"params\": "
      "{\"calibration\": \"cal.json\"}}");
  auto* fit = calibrate.add_subcommand(
      "fit", "fit every parameter the measurements identify; writes a calibration file");
  auto fit_args = std::make_shared<CalibrateFitCommand>();
  configure_calibrate_fit(*fit, *fit_args);
  set_action(*fit, ctx, fit_args, run_calibrate_fit);
  auto* check = calibrate.add_subcommand(
      "check", "measured vs predicted speed per row; last line 'MAE <value>'");
  auto check_args = std::make_shared<CalibrateCheckCommand>();
  configure_calibrate_check(*check, *check_args);
  set_action(*check, ctx, check_args, run_calibrate_check);
  auto* replay = calibrate.add_subcommand(
      "replay-check",
      "a trace replayed on a real GPU (gpumux-probe replay) against its simulation, job by job; "
      "last line 'MAE <value>'");
  auto replay_args = std::make_shared<ReplayCheckCommand>();
  configure_replay_check(*replay, *replay_args);
  set_action(*replay, ctx, replay_args, run_replay_check);
}

}  // namespace gpumux
