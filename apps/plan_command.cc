// `gpumux plan`: per sharing model, the smallest cluster that meets every objective; printed,
// and with --out written to a folder (plan.json, plan.txt, report.html) whole or not at all.
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>

#include "analysis/output/output_folder.h"
#include "analysis/plan/objective.h"
#include "analysis/plan/plan.h"
#include "analysis/plan/plan_report.h"
#include "analysis/report/html_report.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "sim/base/atomic_file.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

struct PlanArgs {
  std::string scenario;
  std::vector<std::string> models;
  std::vector<std::string> model_params;  // NAME=JSON
  std::vector<std::string> objectives;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::string format = "table";
  int threads = 0;  // 0: the machine's hardware threads
  int max_nodes = 256;
  std::string out;  // folder for plan.json, plan.txt (and report.html); empty: none
  bool report = false;
  bool no_jct_guard = false;
};

int run_plan_command(const PlanArgs& a, std::ostream& out, std::ostream& err) {
  PlanRequest request;
  request.scenario_file = a.scenario;
  request.sets = a.sets;
  request.seed = a.seed;
  request.objectives = plan_objectives(a.objectives, !a.no_jct_guard);
  request.models = model_requests(a.models, a.model_params);
  request.threads = threads_or_hardware(a.threads);
  request.max_nodes = a.max_nodes;
  if (a.report && a.out.empty()) {
    throw InputError("--report", "", "needs --out DIR: the report is drawn from the plan folder");
  }
  // Locked and checked before the runs: an unusable folder fails at once, not after them.
  std::unique_ptr<OutputFolder> folder;
  if (!a.out.empty()) folder = std::make_unique<OutputFolder>(a.out);
  const PlanResult result = run_plan(request, &err);
  const nlohmann::json doc = plan_to_json(result);
  std::ostringstream table;
  print_plan_table(result, table);
  if (a.format == "json") {
    out << doc.dump(2) << "\n";
  } else {
    out << table.str();
  }
  if (folder) {
    const auto shown = [&](const char* name) {
      return (std::filesystem::path(a.out) / name).string();
    };
    AtomicFile json_file(folder->file("plan.json"), shown("plan.json"));
    json_file.stream() << doc.dump(2) << "\n";
    json_file.commit();
    AtomicFile table_file(folder->file("plan.txt"), shown("plan.txt"));
    table_file.stream() << table.str();
    table_file.commit();
    if (a.report) write_html_report({folder->temp_path()}, folder->file("report.html"), {a.out});
    folder->commit();
  }
  return result.all_met() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void configure_plan_command(CLI::App& plan, CommandContext& ctx) {
  auto a = std::make_shared<PlanArgs>();
  plan.add_option("scenario", a->scenario, "scenario JSON file with cluster.node_groups")
      ->required();
  plan.add_option("--models", a->models,
                  "sharing models to size, comma-separated (e.g. exclusive,timeslice,mps,mig); "
                  "exclusive gives the baseline for savings. Parameters: --model-params, else "
                  "the scenario's sharing.params when its model is that one, else the model's "
                  "defaults (mig has none: the example of `gpumux models`)")
      ->required()
      ->delimiter(',');
  plan.add_option("--model-params", a->model_params,
                  "a model's sharing.params as NAME=JSON, e.g. mps='{\"admission\": \"peak\"}' "
                  "(paths relative to the scenario). Repeatable.");
  plan.add_option("--objective", a->objectives,
                  "an objective every answer must meet, METRIC<=NUMBER or METRIC>=NUMBER, "
                  "e.g. queue_p95_s<=60. Repeatable; see below.")
      ->required();
  plan.add_option("--format", a->format, "table (default) or json")
      ->check(CLI::IsMember({"table", "json"}));
  plan.add_option("--threads", a->threads,
                  "runs at once (default: the machine's hardware threads); the answer and the "
                  "output do not depend on it")
      ->check(CLI::Range(1, 1024));
  plan.add_option("--max-nodes", a->max_nodes,
                  "largest cluster tried, in nodes over all groups (default 256)")
      ->check(CLI::Range(1, 1'000'000));
  plan.add_option("--set", a->sets,
                  "override a scenario value before planning, as path=value (as for run); "
                  "e.g. scheduler.placement=spread. Repeatable.");
  plan.add_option("--seed", a->seed, "override the scenario's seed")->check(non_negative());
  plan.add_option("--out", a->out,
                  "also write the plan into this folder, whole or not at all: plan.json (as "
                  "--format json), plan.txt (the table); `gpumux report DIR` draws it");
  plan.add_flag("--report", a->report, "with --out: also write DIR/report.html");
  plan.add_flag("--no-jct-guard", a->no_jct_guard,
                "do not apply the JCT guard jct_s.p95<=1.1x exclusive (a sharing model's "
                "answer may then save GPUs by slowing jobs down)");
  plan.footer(objective_help() +
              "Sizes: with g the gcd of the node groups' node counts, size k gives each group "
              "k x (its nodes / g) nodes. Per model: double the size until the objectives are "
              "met, bisect, and run one size below the answer.\n"
              "Example: gpumux plan scenarios/examples/mps_safe.json --models "
              "exclusive,timeslice,mps --objective 'queue_p95_s<=600' --set "
              "scheduler.placement=spread\n"
              "Exit codes: 0 every model got an answer, 3 some model meets the objectives at no "
              "size within --max-nodes (the table says which), 2 bad input, 1 internal error.");
  set_action(plan, ctx, a, run_plan_command);
}

}  // namespace gpumux
