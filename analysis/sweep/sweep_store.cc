#include "analysis/sweep/sweep_store.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "sim/base/atomic_file.h"
#include "analysis/output/output_folder.h"
#include "analysis/run/run.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"

namespace gpumux {

namespace {

namespace fs = std::filesystem;

constexpr const char* kPlanFile = "sweep-plan.json";

bool is_plan_temporary(const std::string& name) {
  return name.rfind(std::string(".") + kPlanFile + ".tmp-", 0) == 0;
}

}  // namespace

std::string sweep_run_folder(const std::string& dir, std::size_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "%06zu", index);
  return (fs::path(dir) / "runs" / name).string();
}

std::string sweep_plan_path(const std::string& dir) { return (fs::path(dir) / kPlanFile).string(); }

void prepare_sweep_folder(const SweepPlan& plan, const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw InputError(dir, "--out", "exists and is not a folder");
  }
  const std::string plan_file = sweep_plan_path(dir);
  const nlohmann::json wanted = plan_to_json(plan);
  if (fs::exists(plan_file, ec)) {
    const SweepPlan there = plan_from_json(read_json_file(plan_file), plan_file);
    // The runs first (a changed sweep or scenario file), then the bytes of the files they read.
    nlohmann::json there_runs = plan_to_json(there);
    nlohmann::json wanted_runs = wanted;
    there_runs.erase("inputs");
    wanted_runs.erase("inputs");
    if (there_runs != wanted_runs) {
      std::string what = "holds another sweep ('" + there.name + "', " +
                         std::to_string(there.runs.size()) + " runs)";
      for (std::size_t i = 0; i < std::min(there.runs.size(), plan.runs.size()); ++i) {
        if (there.runs[i].variant != plan.runs[i].variant ||
            there.runs[i].digest != plan.runs[i].digest || there.runs[i].seed != plan.runs[i].seed) {
          what += "; first difference at run " + std::to_string(i) + " (" +
                  there.runs[i].variant + " seed " + std::to_string(there.runs[i].seed) +
                  " there, " + plan.runs[i].variant + " seed " + std::to_string(plan.runs[i].seed) +
                  " now: a changed sweep or scenario file)";
          break;
        }
      }
      throw InputError(plan_file, "", what + "; resume with the same files or choose a new --out");
    }
    if (there.inputs_recorded) check_unchanged_inputs(there.inputs, plan.inputs, plan_file);
    return;
  }
  if (fs::exists(dir, ec)) {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (!is_plan_temporary(name)) {
        throw InputError(dir, "--out",
                         "exists and holds files but no " + std::string(kPlanFile) +
                             " (first: " + name + "): choose a new or empty folder");
      }
    }
  }
  AtomicFile file(plan_file);
  file.stream() << wanted.dump(1) << "\n";
  file.commit();
}

SweepPlan read_sweep_plan(const std::string& dir) {
  const std::string plan_file = sweep_plan_path(dir);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, "", "no such folder");
  if (!fs::exists(plan_file, ec)) {
    throw InputError(dir, "", std::string("holds no ") + kPlanFile + ": not a sweep's folder");
  }
  return plan_from_json(read_json_file(plan_file), plan_file);
}

SweepRunState sweep_run_state(const std::string& dir, std::size_t index) {
  const fs::path folder = sweep_run_folder(dir, index);
  std::error_code ec;
  if (fs::exists(folder / "summary.json", ec)) return SweepRunState::kDone;
  if (fs::exists(folder / "error.json", ec)) return SweepRunState::kFailed;
  return SweepRunState::kMissing;
}

std::vector<std::size_t> pending_sweep_runs(const SweepPlan& plan, const std::string& dir,
                                            std::size_t shard_index, std::size_t shard_count,
                                            bool retry_failed) {
  std::vector<std::size_t> pending;
  for (std::size_t i = shard_index; i < plan.runs.size(); i += shard_count) {
    const SweepRunState state = sweep_run_state(dir, i);
    if (state == SweepRunState::kMissing || (retry_failed && state == SweepRunState::kFailed)) {
      pending.push_back(i);
    }
  }
  return pending;
}

SweepRunOutcome execute_sweep_run(const SweepRun& run, const std::string& dir) {
  const auto start = std::chrono::steady_clock::now();
  SweepRunOutcome outcome;
  outcome.index = run.index;
  const std::string folder = sweep_run_folder(dir, run.index);
  std::string kind;
  try {
    // A failed run retried: its folder holds error.json only, which OutputFolder would refuse to
    // replace (it replaces run outputs only).
    std::error_code ec;
    if (fs::exists(fs::path(folder) / "error.json", ec)) {
      fs::remove(fs::path(folder) / "error.json");
      fs::remove(folder);
    }
    Scenario s = parse_scenario(run.document, run.scenario_file,
                                fs::path(run.scenario_file).parent_path().string());
    s.outputs.dir = folder;
    RunOptions options;
    options.write_outputs = true;
    run_scenario(s, options);
    outcome.ok = true;
  } catch (const InputError& e) {
    kind = "input";
    outcome.error = e.what();
  } catch (const std::exception& e) {
    kind = "internal";
    outcome.error = e.what();
  }
  if (!outcome.ok) {
    try {
      OutputFolder out(folder);
      AtomicFile file(out.file("error.json"), (fs::path(folder) / "error.json").string());
      file.stream() << nlohmann::json{{"index", run.index},
                                      {"variant", run.variant},
                                      {"seed", run.seed},
                                      {"kind", kind},
                                      {"error", outcome.error}}
                           .dump(2)
                    << "\n";
      file.commit();
      out.commit();
    } catch (const std::exception& e) {
      outcome.recorded = false;
      outcome.error += std::string(" (and its error.json could not be written: ") + e.what() + ")";
    }
  }
  outcome.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

std::string recorded_sweep_error(const std::string& dir, std::size_t index) {
  try {
    const nlohmann::json j =
        read_json_file((fs::path(sweep_run_folder(dir, index)) / "error.json").string());
    if (j.is_object() && j.contains("error") && j["error"].is_string()) {
      return j["error"].get<std::string>();
    }
  } catch (const std::exception&) {
  }
  return "";
}

}  // namespace gpumux
