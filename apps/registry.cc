#include "apps/registry.h"

namespace gpumux {

const Registry<CommandInfo>& commands() {
  static const Registry<CommandInfo> table(
      "command",
      {
          {"run",
           "run a scenario and write summary.json, jobs.csv, timeseries.csv to its output folder",
           configure_run_command},
          {"validate",
           "check a scenario (and its trace header; --full: every trace row) without running it",
           configure_validate_command},
          {"check",
           "run scenarios and check their expect bounds; exit 3 when any bound fails "
           "(docs/checks.md)",
           configure_check_command},
          {"diff",
           "compare two summary.json files (or run folders) metric by metric with tolerances; exit "
           "3 on a difference beyond them (docs/checks.md)",
           configure_diff_command},
          {"generate",
           "write a synthetic trace in the native CSV format (docs/scenario-format.md \"Synthetic "
           "generator\")",
           configure_generate_command},
          {"devices", "list the built-in device profiles", configure_devices_command},
          {"llm-models",
           "list the built-in LLM catalogue (transformer shapes, parameters, weights and KV bytes "
           "per token, sources); `llm-models NAME`: one model in full",
           configure_llm_models_command},
          {"plan",
           "for each sharing model, the smallest cluster (the scenario's node groups scaled "
           "together) that meets every objective",
           configure_plan_command},
          {"compare",
           "run a scenario under several sharing models and seeds; print their metrics side by "
           "side "
           "with 95% intervals (docs/comparing-and-reports.md \"Comparing sharing models\")",
           configure_compare_command},
          {"sweep",
           "run a grid of scenarios x models x axes x seeds into one folder, resumable, on "
           "threads, "
           "MPI ranks or array shards; merge it (docs/sweeps.md)",
           configure_sweep_command},
          {"merge", "gather a sweep folder's runs into sweep.csv (as compare.csv) and sweep.json",
           configure_merge_command},
          {"report",
           "one self-contained HTML page with charts and tables from run, compare and plan folders "
           "(docs/comparing-and-reports.md \"Reports\")",
           configure_report_command},
          {"models",
           "list sharing models, service engines, policies and trace formats; `models NAME`: "
           "one model's, service engine's or policy's parameters (unit, default, source, "
           "description)",
           configure_models_command},
          {"metrics",
           "list every metric (summary.json path, unit, which way is better): the names of expect "
           "bounds, plan --objective, compare and sweep",
           configure_metrics_command},
          {"profiles", "memory-over-time profiles for jobs", configure_profiles_command},
          {"pack",
           "fractional-GPU packing of openb pods (the FGD study's experiment): allocation ratio at "
           "each arrived-workload percentage",
           configure_pack_command},
          {"calibrate",
           "fit the sharing models to what was measured on real GPUs and check them against it: "
           "`calibrate SOURCE fit|check`, sources overlap, pairs, mig-speeds, replay "
           "(docs/calibration.md)",
           configure_calibrate_command},
          {"colocation",
           "older form of `calibrate pairs fit|check` (fit|predict), which runs the same",
           configure_colocation_command},
      });
  return table;
}

}  // namespace gpumux
