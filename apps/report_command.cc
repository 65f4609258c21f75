// `gpumux report`: one self-contained HTML page from run, compare, sweep and plan folders.
#include <filesystem>

#include "analysis/compare/compare_report_input.h"
#include "analysis/report/html_report.h"
#include "analysis/sweep/sweep_report_input.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"

namespace gpumux {

namespace {

namespace fs = std::filesystem;

struct ReportArgs {
  std::vector<std::string> dirs;
  std::string output;
  std::string data_dir;
};

// Each folder by its kind, in the order given; a compare or sweep folder's variants are
// labelled "<folder>: ..." when there are several folders.
ReportInputs read_inputs(const std::vector<std::string>& dirs) {
  ReportInputs inputs;
  inputs.shown = dirs;
  for (const auto& d : dirs) {
    const fs::path dir(d);
    const std::string prefix = dirs.size() > 1 ? display_dir(d) + ": " : "";
    if (fs::is_directory(dir) && fs::exists(dir / "compare.json")) {
      read_compare_folder(dir, d, prefix, inputs);
    } else if (fs::is_directory(dir) && is_sweep_folder(dir)) {
      read_sweep_folder(dir, d, prefix, inputs);
    } else {
      read_report_folder(dir, d, inputs);
    }
  }
  return inputs;
}

int run_report_command(const ReportArgs& a, std::ostream& out, std::ostream&) {
  check_output_paths_differ("--output", a.output, "--data", a.data_dir);
  write_html_report(read_inputs(a.dirs), a.output, a.data_dir);
  out << "wrote " << a.output << "\n";
  if (!a.data_dir.empty()) out << "wrote the figures' data to " << a.data_dir << "\n";
  return kExitOk;
}

}  // namespace

void configure_report_command(CLI::App& report, CommandContext& ctx) {
  auto a = std::make_shared<ReportArgs>();
  report
      .add_option("dirs", a->dirs,
                  "run folders (summary.json, jobs.csv, timeseries.csv, slot_timeseries.csv), "
                  "compare folders (compare.json and DIR/<model>/seed-<seed>/), sweep folders "
                  "(sweep-plan.json and DIR/runs/NNNNNN/, from sweep --out) or plan folders "
                  "(plan.json, from plan --out)")
      ->required();
  report.add_option("-o,--output", a->output, "HTML file to write")->required()->check(non_empty());
  report.add_option("--data", a->data_dir,
                    "also write each figure's data as a tidy CSV into this folder, one file "
                    "named after the figure (e.g. jct-cdf.csv)")
      ->check(non_empty());
  report.footer(
      "Example: gpumux report out/quickstart -o report.html\n"
      "         gpumux report out/sweep -o sweep.html --data sweep-figures\n"
      "Exit codes: 0 ok, 2 bad input (a missing folder, not a run, compare, sweep or plan "
      "folder, malformed JSON or CSV: the message names the file; nothing is written), 1 "
      "internal error.");
  set_action(report, ctx, a, run_report_command);
}

}  // namespace gpumux
