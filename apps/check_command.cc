// `gpumux check`: run scenarios and gate on their expect bounds (exit 3 when one fails).
#include <unistd.h>

#include <optional>

#include "analysis/check/check.h"
#include "analysis/check/check_junit.h"
#include "analysis/output/output_folder.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

struct CheckArgs {
  CheckRequest request;
  std::vector<std::string> tolerances;  // --tolerance, with --baseline
  std::string fail_on;                  // --fail-on, with --baseline ("": any)
  std::string format = "table";
  std::string junit;  // "": no JUnit file
};

int run_check_command(const CheckArgs& a, std::ostream& out, std::ostream& err) {
  // One check per output folder at a time; each scenario's folder is also replaced as a whole.
  check_output_paths_differ("--junit", a.junit, "--out", a.request.out_dir);
  CheckRequest request = a.request;
  if (request.baseline_dir.empty()) {
    for (const auto& [given, name] : {std::pair{!a.tolerances.empty(), "--tolerance"},
                                      std::pair{!request.ignore.empty(), "--ignore"},
                                      std::pair{!a.fail_on.empty(), "--fail-on"}}) {
      if (given) throw InputError(name, "", "compares with a baseline: give --baseline DIR");
    }
  }
  request.tolerances = parse_diff_tolerances(a.tolerances);
  request.fail_on = a.fail_on == "worse" ? FailOn::kWorse : FailOn::kAny;
  std::optional<FolderLock> lock;
  if (!a.request.out_dir.empty()) lock.emplace(a.request.out_dir);
  const CheckResult result = run_check(request, isatty(STDERR_FILENO) ? &err : nullptr);
  if (!a.junit.empty()) write_check_junit_file(result, a.junit);
  if (a.format == "json") {
    out << check_to_json(result).dump(2) << "\n";
  } else {
    print_check_table(result, out);
  }
  return result.pass() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void configure_check_command(CLI::App& check, CommandContext& ctx) {
  auto a = std::make_shared<CheckArgs>();
  check
      .add_option("scenarios", a->request.scenarios,
                  "scenario JSON files, each with an expect block")
      ->required();
  check.add_option("--set", a->request.sets,
                   "override a value in every scenario, as path=value (as for run). Repeatable.");
  check.add_option("--seed", a->request.seed, "override every scenario's seed")
      ->check(non_negative(kMaxScenarioSeed));
  check.add_option("--out", a->request.out_dir,
                   "write each run's outputs to DIR/<scenario name> (default: write no files)")
      ->check(non_empty());
  check.add_option("--junit", a->junit,
                   "also write the results as JUnit XML to FILE: one testcase per bound, "
                   "failures with value, bound and note (written whole, also when a bound "
                   "fails)")
      ->check(non_empty());
  check.add_option("-j,--threads", a->request.threads,
                   "scenarios run at once (default 1); the output and the exit code do not "
                   "depend on it (results are printed in the order of the files)")
      ->check(CLI::Range(1, 1024));
  check.add_option("--format", a->format, "table (default) or json")
      ->check(CLI::IsMember({"table", "json"}));
  check
      .add_option("--baseline", a->request.baseline_dir,
                  "also compare each scenario's summary with DIR/<scenario name>/summary.json "
                  "(what an earlier `check --out DIR` wrote) metric by metric, as gpumux diff "
                  "does; a scenario without bounds is then checked against it alone")
      ->check(non_empty());
  check.add_option("--tolerance", a->tolerances,
                   "with --baseline: METRIC=REL, the relative difference allowed (as for diff; "
                   "default 0, exact equality). Repeatable.");
  check.add_option("--ignore", a->request.ignore,
                   "with --baseline: GLOB, metrics not compared (as for diff). Repeatable.");
  check
      .add_option("--fail-on", a->fail_on,
                  "with --baseline: any (default: every difference beyond tolerance fails) or "
                  "worse (only differences the catalogue does not judge better fail)")
      ->check(CLI::IsMember({"any", "worse"}));
  check.footer(
      "A bound {\"min\": a, \"max\": b} holds when a <= value <= b; a metric that is n/a in "
      "the run (an empty set, or not produced by it) fails.\n"
      "With --baseline, a scenario also fails when a metric differs from its baseline beyond "
      "tolerance (under --fail-on worse: and is not judged better).\n"
      "Exit codes: 0 every bound holds (and every baseline gate passes), 3 some bound or "
      "baseline gate fails, 2 bad input (nothing is run; a missing baseline included), 1 "
      "internal error.");
  add_check_invariants_flag(check, a->request.check_invariants);
  set_action(check, ctx, a, run_check_command);
}

}  // namespace gpumux
