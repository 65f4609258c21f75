// `gpumux compare`: one scenario under several sharing models and seeds, side by side with 95%
// intervals.
#include <filesystem>
#include <optional>

#include "analysis/compare/compare.h"
#include "analysis/compare/compare_report.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

struct CompareArgs {
  std::string scenario;
  std::vector<std::string> models;
  std::vector<std::string> model_params;  // NAME=JSON
  std::vector<std::string> sets;
  int seeds = 1;
  int threads = 0;  // 0: the machine's hardware threads
  std::optional<std::string> out_dir;
  std::string format = "table";
  bool report = false;
  bool check_invariants = false;
  std::string baseline;
};

int run_compare_command(const CompareArgs& a, std::ostream& out, std::ostream& err) {
  CompareRequest request;
  request.scenario_file = a.scenario;
  request.sets = a.sets;
  request.models = model_requests(a.models, a.model_params);
  request.seeds = a.seeds;
  request.threads = threads_or_hardware(a.threads);
  request.out_dir = a.out_dir;
  request.check_invariants = a.check_invariants;
  request.baseline = a.baseline;
  if (a.report && !a.out_dir) {
    throw InputError("--report", "", "needs --out DIR: the report is drawn from the run folders");
  }
  request.report = a.report;
  const CompareResult result = run_compare(request, &err);
  if (a.report) {
    err << "[gpumux] wrote " << (std::filesystem::path(*a.out_dir) / "report.html").string()
        << "\n";
  }
  if (a.format == "json") {
    out << compare_to_json(result).dump(2) << "\n";
  } else {
    print_compare_table(result, out);
  }
  return kExitOk;
}

}  // namespace

void configure_compare_command(CLI::App& compare, CommandContext& ctx) {
  auto a = std::make_shared<CompareArgs>();
  compare.add_option("scenario", a->scenario, "scenario JSON file")->required();
  compare
      .add_option("--models", a->models,
                  "sharing models to compare, comma-separated (e.g. "
                  "exclusive,timeslice,mps,mig). Parameters as for plan: --model-params, else "
                  "the scenario's sharing.params when its model is that one, else the model's "
                  "defaults (mig has none: the example of `gpumux models`)")
      ->required()
      ->delimiter(',');
  compare.add_option("--model-params", a->model_params,
                     "a model's sharing.params as NAME=JSON, e.g. mps='{\"admission\": "
                     "\"peak\"}' (paths relative to the scenario). Repeatable.");
  compare.add_option("--set", a->sets,
                     "override a scenario value before anything runs, as path=value (as for "
                     "run). Repeatable.");
  compare
      .add_option("--seeds", a->seeds,
                  "runs per model: the scenario's seed, seed + 1, ... (default 1)")
      ->check(CLI::Range(1, 1000));
  compare
      .add_option("--threads", a->threads,
                  "runs at once (default: the machine's hardware threads); the output does "
                  "not depend on it")
      ->check(CLI::Range(1, 1024));
  compare.add_option("--out", a->out_dir,
                     "write each run's outputs to DIR/<model>/seed-<seed>/ and DIR/compare.csv, "
                     "DIR/compare.json (default: write nothing)")
      ->check(non_empty());
  compare
      .add_option("--format", a->format,
                  "the printed result: table (default) or json (what compare.json holds)")
      ->check(CLI::IsMember({"table", "json"}));
  compare.add_option("--baseline", a->baseline,
                     "the model the paired-difference table subtracts (variant minus baseline in "
                     "each seed; default: the first of --models); shown with --seeds 2 or more");
  compare.add_flag(
      "--report", a->report,
      "also write DIR/report.html (needs --out; docs/comparing-and-reports.md \"Reports\")");
  compare.footer(
      "Example: gpumux compare scenarios/examples/quickstart.json --models exclusive,timeslice "
      "--seeds 5\n"
      "Exit codes: 0 ok, 2 bad input (nothing is run), 1 internal error.");
  add_check_invariants_flag(compare, a->check_invariants);
  set_action(compare, ctx, a, run_compare_command);
}

}  // namespace gpumux
