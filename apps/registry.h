// The subcommands of `gpumux`, in one table (registry.cc; a Registry, sim/base/registry.h):
// each entry's name, one line of help, and the function that adds its options and its action.
// run_command_line (commands.cc) builds the command line from the table, and `gpumux --help`
// lists the commands in its order.
//
// To add a command: write its options and its run function in its own file in apps/ (as
// plan_command.cc), declare its configure function below, and add one line to the table.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string_view>
#include <vector>

#include "sim/base/registry.h"

namespace gpumux {

// What a command writes to, and the action the chosen one leaves to run after parsing.
struct CommandContext {
  std::ostream& out;
  std::ostream& err;
  std::function<int()> action;  // returns an exit code (apps/exit_codes.h)
};

// Adds a command's options (and sub-commands) to `sub`, and a callback that sets ctx.action.
// The options' storage lives as long as `sub` (the callback holds it).
using ConfigureCommand = void (*)(CLI::App& sub, CommandContext& ctx);

struct CommandInfo {
  std::string_view name;
  std::string_view summary;  // the line `gpumux --help` prints
  ConfigureCommand configure;
};

// Every command, in listing order.
const Registry<CommandInfo>& commands();

// One per command, each in the file named after it.
void configure_run_command(CLI::App& sub, CommandContext& ctx);       // run_command.cc
void configure_validate_command(CLI::App& sub, CommandContext& ctx);  // validate_command.cc
void configure_check_command(CLI::App& sub, CommandContext& ctx);     // check_command.cc
void configure_generate_command(CLI::App& sub, CommandContext& ctx);  // generate_command.cc
void configure_devices_command(CLI::App& sub, CommandContext& ctx);   // devices_command.cc
void configure_llm_models_command(CLI::App& sub, CommandContext& ctx);  // llm_models_command.cc
void configure_plan_command(CLI::App& sub, CommandContext& ctx);      // plan_command.cc
void configure_compare_command(CLI::App& sub, CommandContext& ctx);   // compare_command.cc
void configure_diff_command(CLI::App& sub, CommandContext& ctx);      // diff_command.cc
void configure_sweep_command(CLI::App& sub, CommandContext& ctx);     // sweep_command.cc
void configure_merge_command(CLI::App& sub, CommandContext& ctx);     // sweep_command.cc
void configure_report_command(CLI::App& sub, CommandContext& ctx);    // report_command.cc
void configure_models_command(CLI::App& sub, CommandContext& ctx);    // models_command.cc
void configure_metrics_command(CLI::App& sub, CommandContext& ctx);   // models_command.cc
void configure_profiles_command(CLI::App& sub, CommandContext& ctx);  // profiles_command.cc
// The studies' commands, configured in their folders (packing/, calibrate/): study_commands.cc.
void configure_pack_command(CLI::App& sub, CommandContext& ctx);
void configure_colocation_command(CLI::App& sub, CommandContext& ctx);
void configure_calibrate_command(CLI::App& sub, CommandContext& ctx);

}  // namespace gpumux
