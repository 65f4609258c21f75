// `gpumux check`: runs scenarios and checks each one's `expect` bounds (docs/checks.md "Checks").
//
// Every scenario is loaded and its bound names validated before the first run, so bad input
// (exit 2) writes nothing and runs nothing. A scenario without bounds is bad input: a check
// that checks nothing would pass whatever the run did; with a baseline (--baseline DIR) it is
// checked against the baseline alone.
//
// Baseline: each scenario's summary is compared with DIR/<scenario name>/summary.json (the
// layout `check --out DIR` writes) metric by metric, as `gpumux diff` compares
// (analysis/compare/summary_diff.h: tolerances, ignore patterns, --fail-on any|worse by the
// catalogue's directions); a scenario passes when its bounds hold and no difference fails the
// gate. Every baseline is read before the first run: a missing one is bad input.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/compare/summary_diff.h"
#include "analysis/metrics/expectations.h"

namespace gpumux {

struct CheckRequest {
  std::vector<std::string> scenarios;  // scenario files, checked in this order
  std::vector<std::string> sets;       // --set, applied to every scenario
  std::optional<std::uint64_t> seed;   // --seed, for every scenario
  std::string out_dir;  // "": write no files; else each run's outputs go to out_dir/<name>
  bool check_invariants = false;  // RunOptions::check_invariants for every run
  // Scenarios run at once (>= 1). The result, the printed table and JSON and the exit code do
  // not depend on it: results are kept in scenario order, and a bad-input error is the one of
  // the first failing scenario in that order (as with 1).
  int threads = 1;
  // "": no baseline; else DIR as above, with how its differences are judged.
  std::string baseline_dir;
  DiffTolerances tolerances;
  std::vector<std::string> ignore;
  FailOn fail_on = FailOn::kAny;
};

struct ScenarioCheck {
  std::string file;
  std::string name;
  std::uint64_t seed = 0;
  std::vector<BoundResult> bounds;
  double wall_seconds = 0.0;  // not printed on standard output: it must not vary between runs
  std::string baseline_file;  // with a baseline: the summary compared against
  std::optional<SummaryDiff> baseline;  // with a baseline: this run (B) against it (A)

  bool pass() const { return all_pass(bounds) && (!baseline || baseline->failing() == 0); }
};

struct CheckResult {
  std::vector<ScenarioCheck> scenarios;
  bool pass() const;
};

// Runs every scenario, `request.threads` at a time. `progress` (may be null) gets one line per
// finished scenario, in the order they finish.
// Throws InputError for bad input (before any run).
CheckResult run_check(const CheckRequest& request, std::ostream* progress);

// Per scenario a heading and its aligned bound table, then one closing line:
// "check: all N bounds hold in M scenarios" or "check: FAILED ...".
void print_check_table(const CheckResult& result, std::ostream& out);

// {"pass", "scenarios": [{"file", "name", "seed", "pass", "bounds": [...]}]}.
nlohmann::json check_to_json(const CheckResult& result);

}  // namespace gpumux
