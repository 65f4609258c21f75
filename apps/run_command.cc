// `gpumux run`: one scenario, its outputs, its summary table (or JSON) and its expect bounds.
#include <unistd.h>

#include <filesystem>

#include "analysis/metrics/expectations.h"
#include "analysis/run/run.h"
#include "analysis/run/summary_table.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

struct RunArgs : ScenarioArgs {
  bool quiet = false;
  bool progress = false;
  bool no_outputs = false;
  std::string format = "table";
  bool check = false;
  bool report = false;
  bool check_invariants = false;
};

int run_run(const RunArgs& a, std::ostream& out, std::ostream& err) {
  const Scenario s = load_scenario(a.scenario, overrides_of(a));
  for (const std::string& warning : s.warnings) err << warning << "\n";
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
  if (const std::string note = services_override_note(report.summary); !note.empty()) {
    err << note << "\n";
  }
  if (!a.quiet) {
    err << "[gpumux] " << report.engine.events << " events in " << report.wall_seconds
        << " s wall time\n";
  }
  return a.check && !all_pass(report.expect) ? kExitCheckFailed : kExitOk;
}

}  // namespace

void configure_run_command(CLI::App& run, CommandContext& ctx) {
  auto a = std::make_shared<RunArgs>();
  add_scenario_options(run, *a);
  run.add_option("--out", a->out_dir,
                 "output folder (default: the scenario's outputs.dir, "
                 "else out/<scenario name>)");
  run.add_flag("--quiet", a->quiet,
               "print no summary table and no event count and wall time (warnings still print)");
  run.add_flag("--progress", a->progress,
               "print progress lines to stderr every 2 s: percent of jobs done, time left "
               "(default when stderr is a terminal)");
  run.add_flag("--no-outputs", a->no_outputs, "write no files; print the summary only");
  run.add_option("--format", a->format,
                 "the printed summary: table (default), or json (what summary.json holds)")
      ->check(CLI::IsMember({"table", "json"}));
  run.add_flag("--check", a->check,
               "exit 3 when a bound of the scenario's expect block fails (without it, run "
               "reports the bounds and exits 0)");
  run.add_flag("--report", a->report,
               "also write report.html (charts and tables, one self-contained page) into the "
               "output folder (docs/comparing-and-reports.md \"Reports\")");
  add_check_invariants_flag(run, a->check_invariants);
  set_action(run, ctx, a, run_run);
}

}  // namespace gpumux
