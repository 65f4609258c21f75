// `gpumux plan`: per sharing model, the smallest cluster that meets every objective; printed,
// and with --out written to a folder (plan.json, plan.txt, report.html) whole or not at all.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>

#include "analysis/fleet/fleet_output.h"
#include "analysis/fleet/fleet_plan.h"
#include "analysis/fleet/fleet_report.h"
#include "analysis/fleet/fleet_vary.h"
#include "analysis/output/output_folder.h"
#include "analysis/plan/deploy_config.h"
#include "analysis/plan/objective.h"
#include "analysis/plan/plan.h"
#include "analysis/plan/plan_json.h"
#include "analysis/plan/plan_report.h"
#include "analysis/plan/sensitivity.h"
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
  std::vector<std::string> placements;
  std::string mig_layouts = "generated";  // analysis/plan/mig_layouts.h
  int seeds = 1;
  double seed_share = 1.0;
  std::string curve;  // FROM:TO nodes
  std::vector<double> loads;
  double price = 0.0;
  std::vector<std::string> vary;  // FIELD=LO:HI
  bool no_sensitivity = false;
  bool fleet = false;
  // Options given on the command line that only the cluster-size search reads (--fleet refuses
  // them rather than ignore them).
  std::vector<std::string> sizing_options_given;
};

// --curve FROM:TO (nodes, FROM <= TO).
std::pair<int, int> parse_curve(const std::string& text) {
  const auto colon = text.find(':');
  int from = 0, to = 0;
  std::size_t used_from = 0, used_to = 0;
  try {
    if (colon == std::string::npos) throw std::invalid_argument("no colon");
    from = std::stoi(text.substr(0, colon), &used_from);
    to = std::stoi(text.substr(colon + 1), &used_to);
  } catch (const std::exception&) {
    used_from = 0;
  }
  if (colon == std::string::npos || used_from != colon || used_to != text.size() - colon - 1 ||
      from < 1 || to < from) {
    throw InputError("--curve " + text, "curve",
                     "expected FROM:TO, node counts with 1 <= FROM <= TO (e.g. 8:32)");
  }
  return {from, to};
}

// What an operator applies for each answer (analysis/plan/deploy_config.h): DIR/deploy/MODEL/
// (under DIR/deploy/load-xK/ with several loads), and DIR/deploy/README.txt with the notes.
void write_deploy_files(const std::vector<PlanResult>& results, const OutputFolder& folder,
                        const std::string& shown_dir) {
  namespace fs = std::filesystem;
  std::ostringstream readme;
  readme << "What to apply for each answer of this plan (docs/deploying.md): the NVIDIA "
            "Kubernetes device plugin config and, for MIG, a mig-parted config.\n";
  for (const auto& r : results) {
    fs::path base = "deploy";
    if (results.size() > 1) {
      std::ostringstream load;
      load << "load-x" << r.load_factor;
      base /= load.str();
    }
    for (const auto& m : r.models) {
      if (!m.met) {
        readme << "\n" << (base / m.model).generic_string() << ": no answer, no file\n";
        continue;
      }
      DeployAnswer answer{m.model, m.params, {}};
      for (const auto& g : r.unit) {
        const std::string device = g["device"].get<std::string>();
        const auto profile = std::find_if(r.devices.begin(), r.devices.end(),
                                          [&](const DeviceProfile& d) { return d.name == device; });
        if (profile == r.devices.end()) continue;  // a group's device is always among them
        answer.groups.push_back({g["group"].get<std::string>(), *profile,
                                 g["gpus_per_node"].get<int>(),
                                 g["nodes"].get<int>() * m.answer->size});
      }
      const DeployFiles files = deploy_files(answer);
      const fs::path dir = fs::path(folder.temp_path()) / base / m.model;
      fs::create_directories(dir);
      readme << "\n"
             << (base / m.model).generic_string() << " (" << m.answer->nodes << " nodes, placement "
             << m.placement << "):";
      for (const auto& f : files.files) {
        AtomicFile out((dir / f.name).string(),
                       (fs::path(shown_dir) / base / m.model / f.name).string());
        out.stream() << f.text;
        out.commit();
        readme << " " << f.name;
      }
      if (files.files.empty()) readme << " no file";
      readme << "\n";
      for (const auto& note : files.notes) readme << "  note: " << note << "\n";
    }
  }
  // Placement has no file: the device plugin does not choose nodes. Say which policy answered.
  readme << "\nThe placement policy of each answer is the scheduler's (gpumux scheduler."
            "placement); Kubernetes' default scheduler scores nodes LeastAllocated, closest to "
            "`spread`.\n";
  AtomicFile out((fs::path(folder.temp_path()) / "deploy" / "README.txt").string(),
                 (fs::path(shown_dir) / "deploy" / "README.txt").string());
  out.stream() << readme.str();
  out.commit();
}

// `plan --fleet`: where LLM endpoints go, per sharing model (analysis/fleet/fleet_plan.h).
int run_fleet_command(const PlanArgs& a, std::ostream& out, std::ostream& err) {
  if (a.report && a.out.empty()) {
    throw InputError("--report", "", "needs --out DIR: the report goes to DIR/report.html");
  }
  for (const auto& [given, name] :
       {std::pair{!a.placements.empty(), "--placements"}, std::pair{!a.loads.empty(), "--load"},
        std::pair{!a.curve.empty(), "--curve"},
        std::pair{!a.model_params.empty(), "--model-params"},
        std::pair{a.no_sensitivity, "--no-sensitivity"},
        std::pair{a.no_jct_guard, "--no-jct-guard"}}) {
    if (given) {
      throw InputError(name, "", "does not apply to --fleet, which places endpoints GPU by GPU");
    }
  }
  if (!a.sizing_options_given.empty()) {
    throw InputError(a.sizing_options_given.front(), "",
                     "does not apply to --fleet, which places endpoints GPU by GPU");
  }
  FleetRequest request;
  request.scenario_file = a.scenario;
  request.sets = a.sets;
  request.seed = a.seed;
  request.models = a.models;
  request.objectives = a.objectives;
  request.threads = threads_or_hardware(a.threads);
  request.seeds = a.seeds;
  const std::vector<FleetVary> vary = parse_fleet_vary(a.vary);
  std::unique_ptr<OutputFolder> folder;
  if (!a.out.empty()) folder = std::make_unique<OutputFolder>(a.out, OutputKind::kPlan);
  const FleetResult result = run_fleet_plan(request, &err);
  const std::vector<FleetVaryResult> varied = run_fleet_vary(request, result, vary, &err);
  std::ostringstream table;
  print_fleet_table(result, table);
  print_fleet_vary(varied, result, table);
  nlohmann::json doc = fleet_to_json(result);
  if (!varied.empty()) doc["vary"] = fleet_vary_json(varied, result);
  if (a.format == "json") {
    out << doc.dump(2) << "\n";
  } else {
    out << table.str();
  }
  if (folder) {
    folder->write_text("fleet.json", doc.dump(2) + "\n");
    folder->write_text("fleet.txt", table.str());
    write_fleet_scenarios(result, folder->temp_path(), a.out);
    if (a.report) folder->write_text("report.html", fleet_report_html(result));
    folder->commit();
  }
  return result.all_met() ? kExitOk : kExitCheckFailed;
}

int run_plan_command(const PlanArgs& a, std::ostream& out, std::ostream& err) {
  if (a.fleet) return run_fleet_command(a, out, err);
  PlanRequest request;
  request.scenario_file = a.scenario;
  request.sets = a.sets;
  request.seed = a.seed;
  request.objectives = plan_objectives(a.objectives, !a.no_jct_guard);
  request.models = model_requests(a.models, a.model_params);
  request.threads = threads_or_hardware(a.threads);
  request.max_nodes = a.max_nodes;
  request.placements = a.placements;
  request.mig_layouts = parse_mig_layouts_option(a.mig_layouts);
  request.seeds = a.seeds;
  request.seed_share = a.seed_share;
  request.price_per_gpu_hour = a.price;
  if (!a.curve.empty()) {
    std::tie(request.curve_from_nodes, request.curve_to_nodes) = parse_curve(a.curve);
  }
  if (a.report && a.out.empty()) {
    throw InputError("--report", "", "needs --out DIR: the report is drawn from the plan folder");
  }
  std::vector<double> loads = a.loads.empty() ? std::vector<double>{1.0} : a.loads;
  for (std::size_t i = 0; i < loads.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (loads[i] == loads[j]) throw InputError("--load", "load", "a load is listed twice");
    }
  }
  // Locked and checked before the runs: an unusable folder fails at once, not after them.
  std::unique_ptr<OutputFolder> folder;
  if (!a.out.empty()) folder = std::make_unique<OutputFolder>(a.out, OutputKind::kPlan);
  const std::vector<VaryRange> vary = parse_vary(a.vary);
  if (a.no_sensitivity && !vary.empty()) {
    throw InputError("--vary", "vary", "contradicts --no-sensitivity: drop one");
  }
  // One trace cache for every plan of the command: loads and sensitivity ends read the trace
  // once per distinct trace.defaults, not once per run.
  request.trace_cache = std::make_shared<TraceCache>();
  std::vector<PlanResult> results;
  std::vector<PlanSensitivity> sensitivities;
  for (double load : loads) {
    request.load_factor = load;
    if (loads.size() > 1) err << "[gpumux plan] load x" << load << "\n";
    results.push_back(run_plan(request, &err));
    sensitivities.push_back(a.no_sensitivity
                                ? PlanSensitivity{}
                                : run_sensitivity(request, results.back(), vary, &err));
  }
  nlohmann::json doc;
  std::ostringstream table;
  if (results.size() == 1) {
    doc = plan_to_json(results[0]);
    doc["sensitivity"] = sensitivity_to_json(sensitivities[0], results[0]);
    print_plan_table(results[0], table);
    print_sensitivity(sensitivities[0], results[0], table);
  } else {
    doc = plans_by_load_to_json(results);
    for (std::size_t i = 0; i < results.size(); ++i) {
      doc["plans"][i]["sensitivity"] = sensitivity_to_json(sensitivities[i], results[i]);
      print_plan_table(results[i], table);
      print_sensitivity(sensitivities[i], results[i], table);
      table << "\n";
    }
    print_load_table(results, table);
  }
  if (a.format == "json") {
    out << doc.dump(2) << "\n";
  } else {
    out << table.str();
  }
  if (folder) {
    folder->write_text("plan.json", doc.dump(2) + "\n");
    folder->write_text("plan.txt", table.str());
    write_deploy_files(results, *folder, a.out);
    if (a.report) {
      write_html_report(read_run_and_plan_folders({folder->temp_path()}, {a.out}),
                        folder->file("report.html"));
    }
    folder->commit();
  }
  const bool all =
      std::all_of(results.begin(), results.end(), [](const PlanResult& r) { return r.all_met(); });
  return all ? kExitOk : kExitCheckFailed;
}

}  // namespace

void configure_plan_command(CLI::App& plan, CommandContext& ctx) {
  auto a = std::make_shared<PlanArgs>();
  // Records that a sizing-only option was given, whatever its value (a default given
  // explicitly included).
  const auto sizing_only = [a](const char* name) {
    return [a, name](const std::string&) { a->sizing_options_given.emplace_back(name); };
  };
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
      ->check(CLI::Range(1, 1'000'000))
      ->each(sizing_only("--max-nodes"));
  plan.add_option("--set", a->sets,
                  "override a scenario value before planning, as path=value (as for run); "
                  "e.g. scheduler.placement=spread. Repeatable.");
  plan.add_option("--seed", a->seed, "override the scenario's seed")
      ->check(non_negative(kMaxScenarioSeed));
  plan.add_option("--out", a->out,
                  "also write the plan into this folder, whole or not at all: plan.json (as "
                  "--format json), plan.txt (the table), deploy/MODEL/ (the device plugin and "
                  "mig-parted configs an operator applies; docs/deploying.md); `gpumux report "
                  "DIR` draws it")
      ->check(non_empty());
  plan.add_flag("--report", a->report,
                "with --out: also write DIR/report.html (with --fleet: GPUs per model, each "
                "GPU's busy share and memory, TTFT and TPOT CDFs per endpoint)");
  plan.add_option("--mig-layouts", a->mig_layouts,
                  "MIG layouts searched for mig and its hybrids: generated (default: the "
                  "scenario's, one per MIG profile filled, and half the GPUs whole), scenario "
                  "(its own only), or layouts separated by ';', profiles joined by '+' (e.g. "
                  "'7g.80gb;3g.40gb+3g.40gb'; whole = MIG off; as plan prints them too: "
                  "'3x 2g.20gb + 1g.20gb')")
      ->each(sizing_only("--mig-layouts"));
  plan.add_option("--placements", a->placements,
                  "placement policies to search, comma-separated (default: the scenario's and "
                  "spread); each model's answer is the smallest cluster over them, and the "
                  "table names the policy that got there")
      ->delimiter(',');
  plan.add_option("--seeds", a->seeds,
                  "seeds per size (the scenario's seed, +1, ...; default 1): a size meets the "
                  "objectives only when enough seeds meet them (--seed-share)")
      ->check(CLI::Range(1, 1000));
  plan.add_option("--seed-share", a->seed_share,
                  "share of the seeds that must meet the objectives (default 1: every seed)")
      ->check(finite_number())
      ->check(CLI::Range(1e-9, 1.0))
      ->each(sizing_only("--seed-share"));
  plan.add_option("--curve", a->curve,
                  "FROM:TO: also run every size with FROM..TO nodes, for every model and "
                  "placement (plan.json keeps every size's values; the report draws them)");
  plan.add_option("--load", a->loads,
                  "arrival-rate factors, comma-separated (e.g. 1,1.5,2): one plan per load, "
                  "each with trace.load_factor set (submit-time gaps divided by the factor), "
                  "then a GPUs-vs-load table")
      ->delimiter(',')
      ->check(finite_number())
      ->check(CLI::Range(1e-3, 1e3));
  plan.add_option("--price-per-gpu-hour", a->price,
                  "price of one GPU-hour: adds each answer's cost (its GPUs x makespan) and "
                  "saving in money")
      ->check(finite_number())
      ->check(CLI::NonNegativeNumber)
      ->each(sizing_only("--price-per-gpu-hour"));
  plan.add_option("--vary", a->vary,
                  "FIELD=LO:HI: also solve the plan with the trace field's default held at LO "
                  "and at HI (rows that lack the field), e.g. sm_util=0.05:1, and show each "
                  "model's answer range. Repeatable. Defaults that are distributions are varied "
                  "at their ends without asking (docs/planning.md \"Sensitivity\"). With "
                  "--fleet: 'KEY=LO:HI [for SELECTOR]', an endpoint setting under "
                  "services.by_id.<id>, e.g. 'llm.load.rate_scale=0.8:1.25 for llm-code-*'");
  plan.add_flag("--no-sensitivity", a->no_sensitivity,
                "do not re-solve at the ends of the defaulted fields' distributions");
  plan.add_flag("--fleet", a->fleet,
                "LLM endpoints (and plain services beside them): search which endpoints share "
                "which GPU (MIG instance, MPS share, memory share) per model, GPU by GPU, "
                "verified by simulation; objectives per endpoint (docs/planning.md \"LLM "
                "fleets\"); with --out also fleet/<model>/scenario.json for gpumux run");
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
