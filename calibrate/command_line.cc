#include "calibrate/command_line.h"

#include <memory>
#include <string>

#include "calibrate/colocation/colocation_command.h"
#include "calibrate/overlap/calibrate_command.h"
#include "calibrate/replay/replay_check_command.h"

namespace gpumux::calibration {

namespace {

void add_verb(CLI::App& source, std::string_view name, const Verb& verb, const OnChosen& chosen) {
  if (!verb) return;
  CLI::App* sub = source.add_subcommand(std::string(name), std::string(verb.summary));
  VerbRun run = verb.configure(*sub);
  sub->callback([run, chosen] { chosen(run); });
}

// An older form: its own options (the same as the new form's, or a union of two sources'), the
// same run, and first a line on `err` naming the new form. `new_form` names it from the parsed
// options; the group "" leaves it out of the help.
template <typename Command, auto configure, auto run>
void add_older_form(CLI::App& parent, const std::string& name, const OnChosen& chosen,
                    std::string (*old_form)(const Command&),
                    std::string (*new_form)(const Command&)) {
  CLI::App* sub = parent.add_subcommand(name, "older form of `gpumux calibrate SOURCE VERB`");
  sub->group("");
  auto cmd = std::make_shared<Command>();
  configure(*sub, *cmd);
  sub->callback([cmd, chosen, old_form, new_form] {
    chosen([cmd, old_form, new_form](std::ostream& out, std::ostream& err) {
      err << "note: `gpumux " << old_form(*cmd) << "` is the older form of `gpumux "
          << new_form(*cmd) << "`, which runs the same\n";
      return run(*cmd, out, err);
    });
  });
}

template <typename Command>
std::string mode_mig(const Command& c) {
  return c.mode == "mig" ? " --mode mig" : "";
}
template <typename Command>
std::string source_of_mode(const Command& c) {
  return c.mode == "mig" ? "mig-speeds" : "overlap";
}

}  // namespace

void configure_calibrate_command(CLI::App& calibrate, OnChosen chosen) {
  calibrate.require_subcommand(1);
  for (const SourceInfo& s : calibration_sources()) {
    CLI::App* source = calibrate.add_subcommand(std::string(s.name), std::string(s.summary));
    source->require_subcommand(1);
    add_verb(*source, "fit", s.fit, chosen);
    add_verb(*source, "check", s.check, chosen);
  }
  add_older_form<CalibrateFitCommand, configure_calibrate_fit, run_calibrate_fit>(
      calibrate, "fit", chosen,
      [](const CalibrateFitCommand& c) { return "calibrate fit" + mode_mig(c); },
      [](const CalibrateFitCommand& c) { return "calibrate " + source_of_mode(c) + " fit"; });
  add_older_form<CalibrateCheckCommand, configure_calibrate_check, run_calibrate_check>(
      calibrate, "check", chosen,
      [](const CalibrateCheckCommand& c) { return "calibrate check" + mode_mig(c); },
      [](const CalibrateCheckCommand& c) { return "calibrate " + source_of_mode(c) + " check"; });
  add_older_form<ReplayCheckCommand, configure_replay_check, run_replay_check>(
      calibrate, "replay-check", chosen,
      [](const ReplayCheckCommand&) { return std::string("calibrate replay-check"); },
      [](const ReplayCheckCommand&) { return std::string("calibrate replay check"); });
  calibrate.footer("Sources: " + calibration_sources().names_text() +
                   "; `gpumux calibrate SOURCE --help` for each one's verbs.\n"
                   "Calibrate your own GPU in three commands:\n"
                   "  build/gpumux-probe --out meas --budget-s 300          # on the GPU machine\n"
                   "  gpumux calibrate overlap fit meas/overlap.csv -o cal.json\n"
                   "  gpumux calibrate overlap check meas/overlap.csv --calibration cal.json\n"
                   "then use it in a scenario: \"sharing\": {\"model\": \"mps\", \"params\": "
                   "{\"calibration\": \"cal.json\"}}");
}

void configure_colocation_command(CLI::App& colocation, OnChosen chosen) {
  colocation.require_subcommand(1);
  colocation.footer("An older form of `gpumux calibrate pairs fit|check`, which runs the same.");
  add_older_form<FitCommand, configure_fit_command, run_fit_command>(
      colocation, "fit", chosen, [](const FitCommand&) { return std::string("colocation fit"); },
      [](const FitCommand&) { return std::string("calibrate pairs fit"); });
  add_older_form<PredictCommand, configure_predict_command, run_predict_command>(
      colocation, "predict", chosen,
      [](const PredictCommand&) { return std::string("colocation predict"); },
      [](const PredictCommand&) { return std::string("calibrate pairs check"); });
}

}  // namespace gpumux::calibration
