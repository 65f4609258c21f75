// Options and helpers more than one command uses: the scenario options of run and validate,
// --check-invariants, --threads' default, --models with --model-params, and the callback that
// leaves a command's action to run after parsing.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run/model_choice.h"
#include "apps/registry.h"
#include "scenarios/scenario.h"

namespace gpumux {

// An integer option in [min, max], in decimal digits alone. CLI11 reads "" as not given (or
// 0), "-1" into an unsigned option as 2^64 - 1, and clamps a number past 2^64 - 1; each is an
// error naming the option instead.
CLI::Validator integer_in(std::uint64_t min, std::uint64_t max);
// A seed or a count: integer_in(0, max).
CLI::Validator non_negative(std::uint64_t max = UINT64_MAX);
// The largest seed a scenario takes (its /seed is in [0, 2^63 - 1]).
inline constexpr std::uint64_t kMaxScenarioSeed = INT64_MAX;
// A floating option's value that must be finite: NaN passes CLI11's Range and NonNegativeNumber
// (both compare with < and >). Put it before them: ->check(finite_number())->check(Range(..)).
CLI::Validator finite_number();
// Refuses an output file and an output folder that clash, before anything is written: the same
// path (check --out X --junit X), or the folder inside the file's path (report -o X --data X/d).
// A file inside the folder (--out out --junit out/junit.xml) is fine. Empty paths are not given.
void check_output_paths_differ(const std::string& file_option, const std::string& file,
                               const std::string& folder_option, const std::string& folder);
// A string option that must not be empty (an output path).
CLI::Validator non_empty();

// A scenario and what may override it before validation (run, validate).
struct ScenarioArgs {
  std::string scenario;
  std::optional<std::string> out_dir;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> sets;
};
void add_scenario_options(CLI::App& sub, ScenarioArgs& a);
ScenarioOverrides overrides_of(const ScenarioArgs& a);

void add_check_invariants_flag(CLI::App& sub, bool& flag);

// `threads`, or the machine's hardware threads when it is 0.
int threads_or_hardware(int threads);

// --models and --model-params (NAME=JSON) as the models to run, each with its params if given.
// Throws InputError naming the --model-params argument.
std::vector<ModelRequest> model_requests(const std::vector<std::string>& names,
                                         const std::vector<std::string>& assignments);

// Makes `sub`'s callback set ctx.action to run(*args, ctx.out, ctx.err); the callback holds
// `args` (the options' storage) as long as `sub` lives.
template <class Args, class Run>
void set_action(CLI::App& sub, CommandContext& ctx, std::shared_ptr<Args> args, Run run) {
  sub.callback([&ctx, args, run] {
    ctx.action = [&ctx, args, run] { return run(*args, ctx.out, ctx.err); };
  });
}

}  // namespace gpumux
