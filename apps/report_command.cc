// `gpumux report`: one self-contained HTML page from run, compare and plan folders.
#include "analysis/report/html_report.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"

namespace gpumux {

namespace {

struct ReportArgs {
  std::vector<std::string> dirs;
  std::string output;
};

int run_report_command(const ReportArgs& a, std::ostream& out, std::ostream&) {
  write_html_report(a.dirs, a.output);
  out << "wrote " << a.output << "\n";
  return kExitOk;
}

}  // namespace

void configure_report_command(CLI::App& report, CommandContext& ctx) {
  auto a = std::make_shared<ReportArgs>();
  report
      .add_option("dirs", a->dirs,
                  "run folders (summary.json, jobs.csv, timeseries.csv, slot_timeseries.csv), "
                  "compare folders (compare.json and DIR/<model>/seed-<seed>/) or plan folders "
                  "(plan.json, from plan --out)")
      ->required();
  report.add_option("-o,--output", a->output, "HTML file to write")->required();
  report.footer(
      "Example: gpumux report out/quickstart -o report.html\n"
      "Exit codes: 0 ok, 2 bad input (a missing folder, not a run, compare or plan folder, "
      "malformed JSON or CSV: the message names the file; nothing is written), 1 "
      "internal error.");
  set_action(report, ctx, a, run_report_command);
}

}  // namespace gpumux
