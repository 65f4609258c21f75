// The studies' commands, whose options and runs live in their folders: `pack`
// (packing/pack_command.h), and `calibrate SOURCE fit|check` with its older form `colocation`
// (calibrate/command_line.h, from the table of calibration sources).
#include "apps/command_options.h"
#include "calibrate/command_line.h"
#include "packing/pack_command.h"

namespace gpumux {

void configure_pack_command(CLI::App& pack, CommandContext& ctx) {
  auto a = std::make_shared<packing::PackCommand>();
  packing::configure_pack_command(pack, *a);
  set_action(pack, ctx, a, packing::run_pack_command);
}

void configure_colocation_command(CLI::App& coloc, CommandContext& ctx) {
  calibration::configure_colocation_command(coloc, [&ctx](calibration::VerbRun run) {
    ctx.action = [&ctx, run] { return run(ctx.out, ctx.err); };
  });
}

void configure_calibrate_command(CLI::App& calibrate, CommandContext& ctx) {
  calibration::configure_calibrate_command(calibrate, [&ctx](calibration::VerbRun run) {
    ctx.action = [&ctx, run] { return run(ctx.out, ctx.err); };
  });
}

}  // namespace gpumux
