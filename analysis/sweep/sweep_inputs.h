// The input files a sweep's runs read (traces, nodes CSVs, calibration and mig-parted files,
// memory-profile libraries), with their SHA-256 (analysis/run/provenance.h), recorded in
// DIR/sweep-plan.json when the sweep begins. A run's document names its files, not their bytes:
// without these digests, a trace edited between two shards, or before a resume, would give one
// merged result from two traces. So a sweep resumed into DIR and `gpumux merge DIR` refuse inputs
// whose bytes differ from those the sweep began with (docs/sweeps.md "Changed inputs").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "scenarios/scenario.h"

namespace gpumux {

struct SweepInput {
  std::string scenario;  // the name of the sweep's scenario that reads it
  std::string role;      // e.g. "trace.file"
  std::string file;      // as the scenario gives it (no path of this machine)
  std::uint64_t bytes = 0;
  std::string sha256;
};

// The inputs of a sweep in the order its runs first read them, each once per scenario, role and
// file (runs of one scenario naming one file read the same bytes).
class SweepInputList {
 public:
  // Adds the input files of `scenario`, a run of the sweep's scenario `scenario_name`, that are
  // not listed yet; digests only those. Throws InputError naming a file it cannot read.
  void add(const std::string& scenario_name, const Scenario& scenario);
  const std::vector<SweepInput>& inputs() const { return inputs_; }

 private:
  std::vector<SweepInput> inputs_;
  std::set<std::tuple<std::string, std::string, std::string>> listed_;
};

// [{"scenario", "role", "file", "bytes", "sha256"}, ...].
nlohmann::json sweep_inputs_to_json(const std::vector<SweepInput>& inputs);
// Reads sweep_inputs_to_json's array at `pointer` of `file`. Throws InputError naming the pointer.
std::vector<SweepInput> sweep_inputs_from_json(const nlohmann::json& json, const std::string& file,
                                               const std::string& pointer);

// Resuming: throws InputError naming `plan_file` when an input has other bytes `now` than it
// had when the sweep began (`recorded`), naming its role, file, scenario and both digests, or
// when either list holds an input the other lacks.
void check_unchanged_inputs(const std::vector<SweepInput>& recorded,
                            const std::vector<SweepInput>& now, const std::string& plan_file);

// Merging: throws InputError naming `summary_file` and the JSON pointer when the run's
// summary.json (provenance.inputs) records an input of other bytes than the sweep began with,
// or one the sweep does not list. `run_label` names the run in the message ("run 3 (..., seed
// 8)"). A summary without provenance (written before it existed) is not checked.
void check_run_inputs(const std::vector<SweepInput>& recorded, const std::string& scenario_name,
                      const std::string& run_label, const nlohmann::json& summary,
                      const std::string& summary_file);

}  // namespace gpumux
