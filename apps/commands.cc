#include "apps/commands.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "analysis/check/check.h"
#include "analysis/compare/compare.h"
#include "analysis/compare/compare_report.h"
#include "analysis/metrics/expectations.h"
#include "analysis/metrics/metric_catalogue.h"
#include "analysis/output/output_folder.h"
#include "analysis/plan/objective.h"
#include "analysis/plan/plan.h"
#include "analysis/plan/plan_report.h"
#include "analysis/report/html_report.h"
#include "analysis/run/run.h"
#include "apps/exit_codes.h"
#include "apps/sweep_command.h"
#include "calibrate/colocation/colocation_command.h"
#include "calibrate/overlap/calibrate_command.h"
#include "models/device_registry.h"
#include "models/sharing_registry.h"
#include "packing/pack_command.h"
#include "scenarios/scenario.h"
#include "sim/base/atomic_file.h"
#include "sim/base/closest_names.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/placement/placement_registry.h"
#include "sim/scheduling/scheduler.h"
#include "traces/formats/generator.h"
#include "traces/formats/trace_opening.h"
#include "traces/formats/trace_source.h"
#include "traces/formats/trace_writer.h"
#include "traces/memory_profiles/derive.h"

namespace gpumux {

namespace {

// CLI11 reads "-1" into an unsigned option as 2^64 - 1; a seed or a count is never negative.
CLI::Validator non_negative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto first = text.find_first_not_of(" \t");
        if (first != std::string::npos && text[first] == '-') {
          return "expected a non-negative integer, got " + text;
        }
        return "";
      },
      "NON-NEGATIVE");
}

struct RunArgs {
  std::string scenario;
  std::optional<std::string> out_dir;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> sets;
  bool quiet = false;
  bool progress = false;
  bool no_outputs = false;
  std::string format = "table";
  bool check = false;
  bool report = false;
  bool check_invariants = false;
};

ScenarioOverrides overrides_of(const RunArgs& a) {
  ScenarioOverrides o;
  o.sets = a.sets;
  o.seed = a.seed;
  o.out_dir = a.out_dir;
  return o;
}

void add_scenario_options(CLI::App* sub, RunArgs& a) {
  sub->add_option("scenario", a.scenario,
                  "scenario JSON file (docs/scenario-format.md \"Scenario format\")")
      ->required();
  sub->add_option("--set", a.sets,
                  "override a scenario value before validation, as path=value; the path is "
                  "dotted (sharing.model) or a JSON pointer (/cluster/node_groups/0/nodes); the "
                  "value is JSON, or a string. Repeatable.");
  sub->add_option("--seed", a.seed, "override the scenario's seed")->check(non_negative());
}

void add_check_invariants_flag(CLI::App* sub, bool& flag) {
  sub->add_flag("--check-invariants", flag,
                "check the simulation's invariants as it runs (work conserved, memory within "
                "capacity, no over-allocation, time never backwards, one terminal state per "
                "job); a break is an internal error, exit 1 (README.md \"Exit codes\"); also on "
                "when GPUMUX_CHECK_INVARIANTS=1");
}

int run_run(const RunArgs& a, std::ostream& out, std::ostream& err) {
  const Scenario s = load_scenario(a.scenario, overrides_of(a));
  RunOptions options;
  options.write_outputs = !a.no_outputs;
  if (a.progress || (!a.quiet && isatty(STDERR_FILENO))) options.progress = &err;
  if (a.report && a.no_outputs) {
    throw InputError("--report", "", "needs the run's outputs: drop --no-outputs");
  }
  options.html_report = a.report;
  options.check_invariants = a.check_invariants;
  RunReport report = run_scenario(s, options);
  if (a.no_outputs) report.out_dir.clear();
  if (a.report) {
    err << "[gpumux] wrote " << (std::filesystem::path(report.out_dir) / "report.html").string()
        << "\n";
  }
  if (!a.quiet && a.format == "json") {
    out << report.summary.dump(2) << "\n";
  } else if (!a.quiet) {
    print_summary_table(s, report, out);
    if (!report.expect.empty()) {
      out << "\nexpect (" << (all_pass(report.expect) ? "all bounds hold" : "some bounds FAIL")
          << (a.check ? "" : "; gpumux check or run --check gate on them") << ")\n";
      print_expect_table(report.expect, out);
    }
  }
  if (const std::string warning = excluded_jobs_warning(report.summary); !warning.empty()) {
    err << warning << "\n";
  }
  if (!a.quiet) {
    err << "[gpumux] " << report.engine.events << " events in " << report.wall_seconds
        << " s wall time\n";
  }
  return a.check && !all_pass(report.expect) ? kExitCheckFailed : kExitOk;
}

struct CheckArgs {
  CheckRequest request;
  std::string format = "table";
};

int run_check_command(const CheckArgs& a, std::ostream& out, std::ostream& err) {
  // One check per output folder at a time; each scenario's folder is also replaced as a whole.
  std::optional<FolderLock> lock;
  if (!a.request.out_dir.empty()) lock.emplace(a.request.out_dir);
  const CheckResult result = run_check(a.request, isatty(STDERR_FILENO) ? &err : nullptr);
  if (a.format == "json") {
    out << check_to_json(result).dump(2) << "\n";
  } else {
    print_check_table(result, out);
  }
  return result.pass() ? kExitOk : kExitCheckFailed;
}

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

int run_validate(const RunArgs& a, std::ostream& out) {
  const Scenario s = load_scenario(a.scenario, overrides_of(a));
  validate_expect_names(s);
  // Open the trace and read its header so that a bad trace file fails here too.
  if (!s.trace.generated)
    open_scenario_trace(s.trace.path, s.trace.format, s.trace.defaults, s.seed);
  out << "OK  " << s.file << ": scenario '" << s.name << "', " << s.gpu_count() << " GPUs on "
      << s.nodes.size() << (s.nodes.size() == 1 ? " node" : " nodes") << ", model "
      << s.resolved["sharing"]["model"].get<std::string>() << ", "
      << s.resolved["scheduler"]["queue"].get<std::string>() << " + " << s.placement << ", trace "
      << (s.trace.generated ? "generated" : s.trace.path);
  if (!s.expect.empty()) out << ", " << s.expect.size() << " expect bounds";
  out << "\n";
  return kExitOk;
}

struct GenerateArgs {
  std::string config;
  std::string output;
  std::optional<std::uint64_t> jobs;
  std::uint64_t seed = 1;
};

int run_generate(const GenerateArgs& a, std::ostream& out) {
  nlohmann::json spec_json = nlohmann::json::object();
  std::string file = "<defaults>";
  std::string pointer;
  if (!a.config.empty()) {
    file = a.config;
    nlohmann::json doc = read_json_file(a.config);
    // Accept a generator object, or a scenario whose trace has a generator.
    if (doc.is_object() && doc.contains("trace")) {
      if (!doc["trace"].is_object() || !doc["trace"].contains("generator")) {
        throw InputError(a.config + "#/trace", "generator", "scenario has no trace.generator");
      }
      spec_json = doc["trace"]["generator"];
      pointer = "/trace/generator";
    } else {
      spec_json = doc;
    }
  }
  if (a.jobs) {
    if (!spec_json.is_object()) spec_json = nlohmann::json::object();
    spec_json["jobs"] = *a.jobs;
  }
  JsonObject o(spec_json, file, pointer);
  GeneratedJobs jobs(GeneratorSpec::parse(o), a.seed);
  AtomicFile target(a.output);
  write_trace_header(target.stream());
  JobSpec job;
  std::uint64_t n = 0;
  while (jobs.next(job)) {
    write_trace_row(target.stream(), job);
    ++n;
  }
  target.commit();
  out << "wrote " << n << " jobs to " << a.output << " (seed " << a.seed << ")\n";
  return kExitOk;
}

int run_devices(bool as_json, std::ostream& out) {
  const DeviceRegistry registry = DeviceRegistry::with_builtins();
  if (as_json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [name, d] : registry.all()) list.push_back(device_to_json(d));
    out << list.dump(2) << "\n";
    return kExitOk;
  }
  out << "name          memory_mib  SMs  arch       MPS clients  MIG profiles\n";
  for (const auto& [name, d] : registry.all()) {
    char line[160];
    std::snprintf(line, sizeof line, "%-13s %10lld %4d  %-10s %11d  %zu\n", name.c_str(),
                  static_cast<long long>(d.memory.mib()), d.sms, d.architecture.c_str(),
                  d.mps_client_limit, d.mig_profiles.size());
    out << line;
  }
  out << "(sources per device: gpumux devices --json)\n";
  return kExitOk;
}

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
};

// --models and --model-params (NAME=JSON) as the models to run, each with its params if given.
std::vector<ModelRequest> model_requests(const std::vector<std::string>& names,
                                         const std::vector<std::string>& assignments) {
  std::vector<ModelRequest> models;
  for (const auto& name : names) models.push_back({name, std::nullopt});
  for (const auto& assignment : assignments) {
    const auto eq = assignment.find('=');
    const std::string where = "--model-params " + assignment;
    if (eq == std::string::npos || eq == 0) {
      throw InputError(where, "", "expected NAME=JSON, e.g. mps='{\"admission\": \"peak\"}'");
    }
    const std::string name = assignment.substr(0, eq);
    nlohmann::json params;
    try {
      params = parse_json_text(assignment.substr(eq + 1), where);
    } catch (const InputError& e) {
      throw InputError(where, name, std::string("not valid JSON: ") + e.what());
    }
    if (!params.is_object()) throw InputError(where, name, "expected a JSON object");
    auto it = std::find_if(models.begin(), models.end(),
                           [&](const ModelRequest& m) { return m.name == name; });
    if (it == models.end()) {
      throw InputError(where, name, "model not in --models");
    }
    if (it->params) throw InputError(where, name, "parameters given twice");
    it->params = params;
  }
  return models;
}

int threads_or_hardware(int threads) {
  return threads > 0 ? threads
                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int run_plan_command(const PlanArgs& a, std::ostream& out, std::ostream& err) {
  PlanRequest request;
  request.scenario_file = a.scenario;
  request.sets = a.sets;
  request.seed = a.seed;
  request.objectives = plan_objectives(a.objectives);
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

struct ReportArgs {
  std::vector<std::string> dirs;
  std::string output;
};

int run_report_command(const ReportArgs& a, std::ostream& out) {
  write_html_report(a.dirs, a.output);
  out << "wrote " << a.output << "\n";
  return kExitOk;
}

// One sharing model's declared parameters, as the model declares them when built with its
// smallest valid params (its defaults; mig's example layout): the same declarations every run
// echoes in summary.json.
int run_model_parameters(const std::string& name, std::ostream& out) {
  const auto& models = sharing_models();
  const auto it = std::find_if(models.begin(), models.end(),
                               [&](const SharingModelInfo& m) { return m.name == name; });
  if (it == models.end()) {
    std::vector<std::string> valid;
    for (const auto& m : models) valid.push_back(m.name);
    throw InputError("gpumux models " + name, "NAME",
                     "unknown sharing model '" + name + "' (valid: " + join_names(valid) + ")");
  }
  const nlohmann::json params = nlohmann::json::parse(it->example_params);
  JsonObject object(params, "gpumux models " + name, "/sharing/params");
  const auto model = make_sharing_model(name, object, "gpumux models " + name);
  out << name << ": " << it->summary << "\n";
  if (it->example_params != "{}") out << "example sharing.params: " << it->example_params << "\n";
  const auto parameters = model->parameters();
  if (parameters.empty()) {
    out << "no parameters\n";
    return kExitOk;
  }
  out << "parameters (sharing.params; value as declared with the params above, a device's "
         "measured value replaces a default where the source says so):\n";
  for (const auto& p : parameters) {
    std::string value = p.kind == ModelParameter::Kind::kSwitch ? (p.value != 0 ? "true" : "false")
                        : p.kind == ModelParameter::Kind::kChoice ? std::string(p.choice)
                                                                  : nlohmann::json(p.value).dump();
    out << "  " << p.name << " = " << value << (p.unit.empty() ? "" : " " + p.unit) << "\n"
        << "      " << p.description << "\n"
        << "      source: " << p.source << "\n";
    if (!p.accepts.empty()) out << "      accepts: " << p.accepts << "\n";
  }
  return kExitOk;
}

int run_models(std::ostream& out) {
  out << "sharing models (scenario sharing.model; `gpumux models NAME` lists one's parameters):\n";
  for (const auto& m : sharing_models()) out << "  " << m.name << "  " << m.summary << "\n";
  out << "queue policies (scheduler.queue):\n";
  for (const auto& q : queue_policies()) out << "  " << q.name << "  " << q.summary << "\n";
  out << "placement policies (scheduler.placement):\n";
  for (const auto& p : placement_policies()) {
    out << "  " << p.name << "  " << p.summary
        << (p.needs == PlacementNeeds::kFractionalJobs
                ? " (needs a model that admits fractional jobs: fractional, timeslice, mps)"
                : "")
        << "\n";
  }
  out << "trace formats (trace.format):\n";
  for (const auto& f : trace_formats()) out << "  " << f.name << "  " << f.summary << "\n";
  return kExitOk;
}

}  // namespace

int run_command_line(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{
      "gpumux: a discrete-event simulator of GPU clusters shared by many jobs.\n"
      "Replays a job trace under a GPU-sharing model and reports utilization, latency and GPUs "
      "used.\nStart with: gpumux run scenarios/examples/quickstart.json"};
  app.set_version_flag("--version", std::string("gpumux ") + GPUMUX_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 ok, 2 bad input (the message names file, line or JSON pointer, "
      "and field), 3 check (or run --check): a bound of a scenario's expect block fails; plan: "
      "some model meets the objectives at no size within --max-nodes; sweep/merge: some run "
      "failed, 1 internal error.");
  std::function<int()> action;

  RunArgs run_args;
  auto* run = app.add_subcommand("run",
                                 "run a scenario and write summary.json, jobs.csv, "
                                 "timeseries.csv to its output folder");
  add_scenario_options(run, run_args);
  run->add_option("--out", run_args.out_dir,
                  "output folder (default: the scenario's outputs.dir, "
                  "else out/<scenario name>)");
  run->add_flag("--quiet", run_args.quiet,
                "print no summary table and no event count and wall time (warnings still print)");
  run->add_flag("--progress", run_args.progress,
                "print progress lines to stderr every 2 s: percent of jobs done, time left "
                "(default when stderr is a terminal)");
  run->add_flag("--no-outputs", run_args.no_outputs, "write no files; print the summary only");
  run->add_option("--format", run_args.format,
                  "the printed summary: table (default), or json (what summary.json holds)")
      ->check(CLI::IsMember({"table", "json"}));
  run->add_flag("--check", run_args.check,
                "exit 3 when a bound of the scenario's expect block fails (without it, run "
                "reports the bounds and exits 0)");
  run->add_flag("--report", run_args.report,
                "also write report.html (charts and tables, one self-contained page) into the "
                "output folder (docs/comparing-and-reports.md \"Reports\")");
  add_check_invariants_flag(run, run_args.check_invariants);
  run->callback([&] { action = [&] { return run_run(run_args, out, err); }; });

  RunArgs validate_args;
  auto* validate = app.add_subcommand("validate",
                                      "check a scenario (and its trace header) "
                                      "without running it");
  add_scenario_options(validate, validate_args);
  validate->callback([&] { action = [&] { return run_validate(validate_args, out); }; });

  CheckArgs check_args;
  auto* check =
      app.add_subcommand("check",
                         "run scenarios and check their expect bounds; exit 3 when any bound fails "
                         "(docs/checks.md)");
  check
      ->add_option("scenarios", check_args.request.scenarios,
                   "scenario JSON files, each with an expect block")
      ->required();
  check->add_option("--set", check_args.request.sets,
                    "override a value in every scenario, as path=value (as for run). Repeatable.");
  check->add_option("--seed", check_args.request.seed, "override every scenario's seed");
  check->add_option("--out", check_args.request.out_dir,
                    "write each run's outputs to DIR/<scenario name> (default: write no files)");
  check->add_option("--format", check_args.format, "table (default) or json")
      ->check(CLI::IsMember({"table", "json"}));
  check->footer(
      "A bound {\"min\": a, \"max\": b} holds when a <= value <= b; a metric that is n/a in "
      "the run (an empty set, or not produced by it) fails.\n"
      "Exit codes: 0 every bound holds, 3 some bound fails, 2 bad input (nothing is run), 1 "
      "internal error.");
  add_check_invariants_flag(check, check_args.request.check_invariants);
  check->callback([&] { action = [&] { return run_check_command(check_args, out, err); }; });

  GenerateArgs gen;
  auto* generate = app.add_subcommand("generate",
                                      "write a synthetic trace in the native CSV format "
                                      "(docs/scenario-format.md \"Synthetic generator\")");
  generate->add_option("--config", gen.config,
                       "generator JSON object, or a scenario whose trace has a generator "
                       "(default: the documented generator defaults)");
  generate->add_option("--jobs", gen.jobs, "number of jobs (overrides the config)")
      ->check(non_negative());
  generate->add_option("--seed", gen.seed, "random seed (default 1)")->check(non_negative());
  generate->add_option("-o,--output", gen.output, "output CSV file")->required();
  generate->callback([&] { action = [&] { return run_generate(gen, out); }; });

  bool devices_json = false;
  auto* devices = app.add_subcommand("devices", "list the built-in device profiles");
  devices->add_flag("--json", devices_json, "print full profiles (MIG tables, sources) as JSON");
  devices->callback([&] { action = [&] { return run_devices(devices_json, out); }; });

  PlanArgs plan_args;
  auto* plan = app.add_subcommand(
      "plan",
      "for each sharing model, the smallest cluster (the scenario's node groups scaled together) "
      "that meets every objective");
  plan->add_option("scenario", plan_args.scenario, "scenario JSON file with cluster.node_groups")
      ->required();
  plan->add_option("--models", plan_args.models,
                   "sharing models to size, comma-separated (e.g. exclusive,timeslice,mps,mig); "
                   "exclusive gives the baseline for savings. Parameters: --model-params, else "
                   "the scenario's sharing.params when its model is that one, else the model's "
                   "defaults (mig has none: the example of `gpumux models`)")
      ->required()
      ->delimiter(',');
  plan->add_option("--model-params", plan_args.model_params,
                   "a model's sharing.params as NAME=JSON, e.g. mps='{\"admission\": \"peak\"}' "
                   "(paths relative to the scenario). Repeatable.");
  plan->add_option("--objective", plan_args.objectives,
                   "an objective every answer must meet, METRIC<=NUMBER or METRIC>=NUMBER, "
                   "e.g. queue_p95_s<=60. Repeatable; see below.")
      ->required();
  plan->add_option("--format", plan_args.format, "table (default) or json")
      ->check(CLI::IsMember({"table", "json"}));
  plan->add_option("--threads", plan_args.threads,
                   "runs at once (default: the machine's hardware threads); the answer and the "
                   "output do not depend on it")
      ->check(CLI::Range(1, 1024));
  plan->add_option("--max-nodes", plan_args.max_nodes,
                   "largest cluster tried, in nodes over all groups (default 256)")
      ->check(CLI::Range(1, 1'000'000));
  plan->add_option("--set", plan_args.sets,
                   "override a scenario value before planning, as path=value (as for run); "
                   "e.g. scheduler.placement=spread. Repeatable.");
  plan->add_option("--seed", plan_args.seed, "override the scenario's seed")->check(non_negative());
  plan->add_option("--out", plan_args.out,
                   "also write the plan into this folder, whole or not at all: plan.json (as "
                   "--format json), plan.txt (the table); `gpumux report DIR` draws it");
  plan->add_flag("--report", plan_args.report, "with --out: also write DIR/report.html");
  plan->footer(objective_help() +
               "Sizes: with g the gcd of the node groups' node counts, size k gives each group "
               "k x (its nodes / g) nodes. Per model: double the size until the objectives are "
               "met, bisect, and run one size below the answer.\n"
               "Example: gpumux plan scenarios/examples/mps_safe.json --models "
               "exclusive,timeslice,mps --objective 'queue_p95_s<=600' --set "
               "scheduler.placement=spread\n"
               "Exit codes: 0 every model got an answer, 3 some model meets the objectives at no "
               "size within --max-nodes (the table says which), 2 bad input, 1 internal error.");
  plan->callback([&] { action = [&] { return run_plan_command(plan_args, out, err); }; });

  CompareArgs compare_args;
  auto* compare = app.add_subcommand(
      "compare",
      "run a scenario under several sharing models and seeds; print their metrics side by side "
      "with 95% intervals (docs/comparing-and-reports.md \"Comparing sharing models\")");
  compare->add_option("scenario", compare_args.scenario, "scenario JSON file")->required();
  compare
      ->add_option("--models", compare_args.models,
                   "sharing models to compare, comma-separated (e.g. "
                   "exclusive,timeslice,mps,mig). Parameters as for plan: --model-params, else "
                   "the scenario's sharing.params when its model is that one, else the model's "
                   "defaults (mig has none: the example of `gpumux models`)")
      ->required()
      ->delimiter(',');
  compare->add_option("--model-params", compare_args.model_params,
                      "a model's sharing.params as NAME=JSON, e.g. mps='{\"admission\": "
                      "\"peak\"}' (paths relative to the scenario). Repeatable.");
  compare->add_option("--set", compare_args.sets,
                      "override a scenario value before anything runs, as path=value (as for "
                      "run). Repeatable.");
  compare
      ->add_option("--seeds", compare_args.seeds,
                   "runs per model: the scenario's seed, seed + 1, ... (default 1)")
      ->check(CLI::Range(1, 1000));
  compare
      ->add_option("--threads", compare_args.threads,
                   "runs at once (default: the machine's hardware threads); the output does "
                   "not depend on it")
      ->check(CLI::Range(1, 1024));
  compare->add_option("--out", compare_args.out_dir,
                      "write each run's outputs to DIR/<model>/seed-<seed>/ and DIR/compare.csv, "
                      "DIR/compare.json (default: write nothing)");
  compare
      ->add_option("--format", compare_args.format,
                   "the printed result: table (default) or json (what compare.json holds)")
      ->check(CLI::IsMember({"table", "json"}));
  compare->add_flag(
      "--report", compare_args.report,
      "also write DIR/report.html (needs --out; docs/comparing-and-reports.md \"Reports\")");
  compare->footer(
      "Example: gpumux compare scenarios/examples/quickstart.json --models exclusive,timeslice "
      "--seeds 5\n"
      "Exit codes: 0 ok, 2 bad input (nothing is run), 1 internal error.");
  add_check_invariants_flag(compare, compare_args.check_invariants);
  compare->callback([&] { action = [&] { return run_compare_command(compare_args, out, err); }; });

  SweepCommand sweep_args;
  auto* sweep = app.add_subcommand(
      "sweep",
      "run a grid of scenarios x models x axes x seeds into one folder, resumable, on threads, "
      "MPI ranks or array shards; merge it (docs/sweeps.md)");
  configure_sweep_command(*sweep, sweep_args);
  sweep->callback([&] { action = [&] { return run_sweep_command(sweep_args, out, err); }; });

  MergeCommand merge_args;
  auto* merge = app.add_subcommand(
      "merge", "gather a sweep folder's runs into sweep.csv (as compare.csv) and sweep.json");
  configure_merge_command(*merge, merge_args);
  merge->callback([&] { action = [&] { return run_merge_command(merge_args, out, err); }; });

  ReportArgs report_args;
  auto* report = app.add_subcommand(
      "report",
      "one self-contained HTML page with charts and tables from run, compare and plan "
      "folders (docs/comparing-and-reports.md \"Reports\")");
  report
      ->add_option("dirs", report_args.dirs,
                   "run folders (summary.json, jobs.csv, timeseries.csv, slot_timeseries.csv), "
                   "compare folders (compare.json and DIR/<model>/seed-<seed>/) or plan folders "
                   "(plan.json, from plan --out)")
      ->required();
  report->add_option("-o,--output", report_args.output, "HTML file to write")->required();
  report->footer(
      "Example: gpumux report out/quickstart -o report.html\n"
      "Exit codes: 0 ok, 2 bad input (a missing folder, not a run, compare or plan folder, "
      "malformed JSON or CSV: the message names the file; nothing is written), 1 "
      "internal error.");
  report->callback([&] { action = [&] { return run_report_command(report_args, out); }; });

  std::string model_name;
  auto* models = app.add_subcommand(
      "models",
      "list sharing models, policies and trace formats; `models NAME`: one sharing "
      "model's parameters (unit, default, source, description)");
  models->add_option("NAME", model_name, "a sharing model, e.g. timeslice");
  models->footer("Example: gpumux models timeslice");
  models->callback([&] {
    action = [&] {
      return model_name.empty() ? run_models(out) : run_model_parameters(model_name, out);
    };
  });

  auto* metrics = app.add_subcommand(
      "metrics",
      "list every metric (summary.json path, unit, which way is better): the names of "
      "expect bounds, plan --objective, compare and sweep");
  metrics->callback([&] {
    action = [&] {
      out << metric_catalogue_text();
      return kExitOk;
    };
  });

  std::string memory_csv, duty_csv, profiles_out;
  auto* profiles = app.add_subcommand("profiles", "memory-over-time profiles for jobs");
  profiles->require_subcommand(1);
  auto* derive = profiles->add_subcommand(
      "derive",
      "derive a profile library (trace.memory_profiles.library) from per-pod GPU "
      "memory and duty-cycle series in the Alibaba GenAI 2026 schema");
  derive->add_option("--memory", memory_csv, "pod_gpu_memory_used_bytes CSV")->required();
  derive->add_option("--duty", duty_csv, "pod_gpu_duty_cycle CSV")->required();
  derive->add_option("-o,--output", profiles_out, "library JSON to write")->required();
  derive->callback([&] {
    action = [&] {
      return run_derive_memory_profiles(memory_csv, duty_csv, profiles_out, out, err);
    };
  });

  packing::PackCommand pack_args;
  auto* pack = app.add_subcommand(
      "pack",
      "fractional-GPU packing of openb pods (the FGD study's experiment): allocation "
      "ratio at each arrived-workload percentage");
  packing::configure_pack_command(*pack, pack_args);
  pack->callback([&] { action = [&] { return packing::run_pack_command(pack_args, out, err); }; });
  colocation::FitCommand fit_args;
  colocation::PredictCommand predict_args;
  auto* coloc = app.add_subcommand("colocation",
                                   "fit and check the co-location model on "
                                   "measured pairs");
  coloc->require_subcommand(1);
  auto* fit = coloc->add_subcommand("fit", "fit the model's free parameters by least squares");
  colocation::configure_fit_command(*fit, fit_args);
  fit->callback([&] { action = [&] { return colocation::run_fit_command(fit_args, out, err); }; });
  auto* predict = coloc->add_subcommand("predict", "predicted vs measured speeds, then MAE");
  colocation::configure_predict_command(*predict, predict_args);
  predict->callback(
      [&] { action = [&] { return colocation::run_predict_command(predict_args, out, err); }; });

  CalibrateFitCommand calibrate_fit_args;
  CalibrateCheckCommand calibrate_check_args;
  auto* calibrate = app.add_subcommand(
      "calibrate",
      "fit the time-slicing and MPS models to kernel overlap measured on a real GPU "
      "(gpumux-probe output), and check them against it");
  calibrate->require_subcommand(1);
  calibrate->footer(
      "Calibrate your own GPU in three commands:\n"
      "  build/gpumux-probe --out meas --budget-s 300          # on the GPU machine\n"
      "  gpumux calibrate fit meas/overlap.csv -o cal.json\n"
      "  gpumux calibrate check meas/overlap.csv --calibration cal.json\n"
      "then use it in a scenario: \"sharing\": {\"model\": \"mps\", \"params\": "
      "{\"calibration\": \"cal.json\"}}");
  auto* calibrate_fit = calibrate->add_subcommand(
      "fit", "fit every parameter the measurements identify; writes a calibration file");
  configure_calibrate_fit(*calibrate_fit, calibrate_fit_args);
  calibrate_fit->callback(
      [&] { action = [&] { return run_calibrate_fit(calibrate_fit_args, out, err); }; });
  auto* calibrate_check = calibrate->add_subcommand(
      "check", "measured vs predicted speed per row; last line 'MAE <value>'");
  configure_calibrate_check(*calibrate_check, calibrate_check_args);
  calibrate_check->callback(
      [&] { action = [&] { return run_calibrate_check(calibrate_check_args, out, err); }; });

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
    return action ? action() : kExitOk;
  } catch (const InputError& e) {
    err << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    err << "internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace gpumux
