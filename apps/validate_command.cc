// `gpumux validate`: a scenario (and its trace header, or with --full every trace row) checked
// without running it.
#include "analysis/metrics/expectations.h"
#include "analysis/run/trace_readout.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "sim/base/terminal_text.h"
#include "traces/formats/trace_opening.h"
#include "traces/transforms/filter_source.h"

namespace gpumux {

namespace {

struct ValidateArgs {
  ScenarioArgs scenario;
  bool full = false;
};

int run_validate(const ValidateArgs& v, std::ostream& out, std::ostream& err) {
  const ScenarioArgs& a = v.scenario;
  const Scenario s = load_scenario(a.scenario, overrides_of(a));
  for (const std::string& warning : s.warnings) err << warning << "\n";
  validate_expect_names(s);
  // Open the trace and read its header so that a bad trace file fails here too; --full reads
  // every row. Nothing is printed before the whole check passed.
  TraceReadout readout;
  if (v.full) {
    readout = read_whole_trace(s);
  } else if (!s.trace.generated) {
    open_scenario_trace(s.trace.path, s.trace.format, s.trace.defaults, s.seed);
  }
  out << "OK  " << terminal_text(s.file) << ": scenario '" << terminal_text(s.name) << "', "
      << s.gpu_count() << " GPUs on " << s.nodes.size()
      << (s.nodes.size() == 1 ? " node" : " nodes") << ", model "
      << s.resolved["sharing"]["model"].get<std::string>() << ", "
      << s.resolved["scheduler"]["queue"].get<std::string>() << " + " << s.placement->name
      << ", trace " << (s.trace.generated ? "generated" : terminal_text(s.trace.path));
  if (!s.expect.empty()) out << ", " << s.expect.size() << " expect bounds";
  if (v.full && !readout.generated) {
    out << "; " << grouped_count(readout.rows) << (readout.rows == 1 ? " row" : " rows")
        << " read";
    if (readout.skipped > 0) out << " (" << grouped_count(readout.skipped) << " lines skipped)";
    if (s.trace.filter.active()) out << ", " << grouped_count(readout.kept) << " kept by the filter";
  }
  out << "\n";
  return kExitOk;
}

}  // namespace

void configure_validate_command(CLI::App& validate, CommandContext& ctx) {
  auto a = std::make_shared<ValidateArgs>();
  add_scenario_options(validate, a->scenario);
  validate.add_flag("--full", a->full,
                    "read every row of the trace, not only its header: a bad row anywhere fails "
                    "with file:line and the field, as run would; prints the row count");
  validate.footer(
      "Without --full the scenario is checked and the trace's header read (fast, for editors); "
      "with --full every row is parsed and checked too (for a pre-merge hook).\n"
      "Example: gpumux validate --full scenarios/examples/quickstart.json\n"
      "Exit codes: 0 valid, 2 bad input (the message names the file, line or JSON pointer, and "
      "the field), 1 internal error.");
  set_action(validate, ctx, a, run_validate);
}

}  // namespace gpumux
