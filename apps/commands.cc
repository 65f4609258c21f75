#include "apps/commands.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/run/build_info.h"
#include "apps/exit_codes.h"
#include "apps/registry.h"
#include "sim/base/closest_names.h"
#include "sim/base/input_error.h"
#include "sim/base/terminal_text.h"

namespace gpumux {

namespace {

// An unknown (sub)command, named with the closest known ones; "" when `argv` names only known
// commands. Looks at the leading words that select subcommands; options end the walk.
std::string unknown_command_error(CLI::App& app, int argc, char** argv) {
  CLI::App* level = &app;
  std::string path = "gpumux";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-' || level->get_require_subcommand_min() == 0) return "";
    std::vector<std::string> names;
    for (const CLI::App* sub : level->get_subcommands([](CLI::App*) { return true; })) {
      names.push_back(sub->get_name());
    }
    if (std::find(names.begin(), names.end(), word) == names.end()) {
      const auto close = closest_names(word, names, 1);
      return "unknown command '" + word + "' for " + path +
             (close.empty() ? "" : " (did you mean '" + close.front() + "'?)") +
             "; commands: " + join_names(names) + " (" + path + " --help)";
    }
    level = level->get_subcommand(word);
    path += " " + word;
  }
  return "";
}

}  // namespace

namespace {

// The `gpumux` application with every command configured into `ctx`.
void configure_app(CLI::App& app, CommandContext& ctx) {
  const std::string git(build_git_describe());
  app.set_version_flag("--version", std::string("gpumux ") + GPUMUX_VERSION +
                                        (git.empty() ? "" : " (git " + git + ")"));
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 ok, 2 bad input (the message names file, line or JSON pointer, "
      "and field), 3 check (or run --check): a bound of a scenario's expect block fails; plan: "
      "some model meets the objectives at no size within --max-nodes; sweep/merge: some run "
      "failed, 1 internal error.");
  for (const CommandInfo& command : commands()) {
    command.configure(*app.add_subcommand(std::string(command.name), std::string(command.summary)),
                      ctx);
  }
}

constexpr const char* kAppDescription =
    "gpumux: a discrete-event simulator of GPU clusters shared by many jobs.\n"
    "Replays a job trace under a GPU-sharing model and reports utilization, latency and GPUs "
    "used.\nStart with: gpumux run scenarios/examples/quickstart.json";

}  // namespace

int run_command_line(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{kAppDescription};
  CommandContext ctx{out, err, {}};
  configure_app(app, ctx);

  if (const std::string unknown = unknown_command_error(app, argc, argv); !unknown.empty()) {
    err << "error: " << unknown << "\n";
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  try {
    return ctx.action ? ctx.action() : kExitOk;
  } catch (const InputError& e) {
    err << "error: " << terminal_text(e.what()) << "\n";
    return kExitBadInput;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave that the file system refuses (a symlink loop, no permission): the
    // input's fault, named by its path, not an internal error.
    err << "error: " << terminal_text(e.path1().string()) << ": " << e.code().message() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    err << "internal error: " << terminal_text(e.what()) << "\n";
    return kExitInternal;
  }
}

int run_command_line_or_throw(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{kAppDescription};
  CommandContext ctx{out, err, {}};
  configure_app(app, ctx);
  if (const std::string unknown = unknown_command_error(app, argc, argv); !unknown.empty()) {
    throw InputError("command line", "", unknown);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    app.exit(e, out, err);  // --help, --version: their text, exit 0
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    throw InputError("command line", "", e.what());
  }
  return ctx.action ? ctx.action() : kExitOk;
}

}  // namespace gpumux
