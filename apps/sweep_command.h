// The `gpumux sweep` and `gpumux merge` subcommands: their options and exit codes (0 every run
// ended, 3 some run failed: recorded, listed, the others merged; 2 bad input).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <ostream>
#include <string>

namespace gpumux {

struct SweepCommand {
  std::string sweep_file;
  std::string out_dir;
  int threads = 0;  // 0: the machine's hardware threads
  std::string shard;
  bool retry_failed = false;
  std::string format = "table";
  CLI::Option* threads_option = nullptr;
};

struct MergeCommand {
  std::string dir;
  bool partial = false;
  std::string format = "table";
};

void configure_sweep_command(CLI::App& sub, SweepCommand& args);
void configure_merge_command(CLI::App& sub, MergeCommand& args);
int run_sweep_command(const SweepCommand& args, std::ostream& out, std::ostream& err);
int run_merge_command(const MergeCommand& args, std::ostream& out, std::ostream& err);

}  // namespace gpumux
