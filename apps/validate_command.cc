// `gpumux validate`: a scenario (and its trace header) checked without running it.
#include "analysis/metrics/expectations.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "traces/formats/trace_opening.h"

namespace gpumux {

namespace {

int run_validate(const ScenarioArgs& a, std::ostream& out, std::ostream& err) {
  const Scenario s = load_scenario(a.scenario, overrides_of(a));
  for (const std::string& warning : s.warnings) err << warning << "\n";
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

}  // namespace

void configure_validate_command(CLI::App& validate, CommandContext& ctx) {
  auto a = std::make_shared<ScenarioArgs>();
  add_scenario_options(validate, *a);
  set_action(validate, ctx, a, run_validate);
}

}  // namespace gpumux
