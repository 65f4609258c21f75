// The table of calibration sources (sources.h): each source's verbs are the functions of its
// folder, wrapped here into a VerbRun that owns the parsed options.
#include <memory>

#include "calibrate/colocation/colocation_command.h"
#include "calibrate/llm_profiles/llm_profiles_command.h"
#include "calibrate/overlap/calibrate_command.h"
#include "calibrate/replay/replay_check_command.h"
#include "calibrate/sources.h"

namespace gpumux::calibration {

namespace {

// A verb from its folder's option struct, configure function and run function.
template <typename Command, auto configure, auto run>
VerbRun verb(CLI::App& sub) {
  auto cmd = std::make_shared<Command>();
  configure(sub, *cmd);
  return [cmd](std::ostream& out, std::ostream& err) { return run(*cmd, out, err); };
}

}  // namespace

const Registry<SourceInfo>& calibration_sources() {
  static const Registry<SourceInfo> table(
      "calibration source",
      {
          {"overlap",
           "kernel overlap measured on a real GPU under time-slicing and MPS (gpumux-probe's "
           "overlap.csv): the timeslice and mps models",
           {"fit every parameter the measurements identify; writes a calibration file",
            verb<CalibrateFitCommand, configure_overlap_fit, run_calibrate_fit>},
           {"measured vs predicted speed per row; last line 'MAE <value>'",
            verb<CalibrateCheckCommand, configure_overlap_check, run_calibrate_check>}},
          {"pairs",
           "training jobs measured alone and in co-located pairs (Lucid's data; Gavel's as a "
           "second "
           "source): the time-slicing model",
           {"fit the model's free parameters by least squares, cross-validated; writes them",
            verb<FitCommand, configure_fit_command, run_fit_command>},
           {"predicted vs measured speeds of each pair, then 'MAE <value>'",
            verb<PredictCommand, configure_predict_command, run_predict_command>}},
          {"mig-speeds",
           "job speeds measured on MIG profiles (MISO's layout) with each workload's utilization: "
           "the mig job-speed model",
           {"fit the job-speed model's kernel width; writes a calibration file",
            verb<CalibrateFitCommand, configure_mig_speeds_fit, run_calibrate_fit>},
           {"measured vs predicted speed per row; last line 'MAE <value>'",
            verb<CalibrateCheckCommand, configure_mig_speeds_check, run_calibrate_check>}},
          {"replay",
           "a trace replayed on a real GPU (gpumux-probe replay): the simulation of the same "
           "trace, "
           "job by job",
           {},
           {"measured vs simulated outcome and JCT per job; last line 'MAE <value>'",
            verb<ReplayCheckCommand, configure_replay_check, run_replay_check>}},
          {"llm-profiles",
           "LLM engines' operators profiled vs tokens (Vidur's mlp.csv / attention.csv, "
           "LLMServingSim's dense.csv / per_sequence.csv / attention.csv): the LLM performance "
           "model",
           {"fit the model's efficiencies per operator class, cross-validated; writes them",
            verb<LlmProfilesCommand, configure_llm_profiles_fit, run_llm_profiles_fit>},
           {"measured vs predicted per operator class; last line 'MAE <value>'",
            verb<LlmProfilesCommand, configure_llm_profiles_check, run_llm_profiles_check>}},
      });
  return table;
}

}  // namespace gpumux::calibration
