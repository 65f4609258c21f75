// The `provenance` of summary.json, compare.json, plan.json and sweep.json: what a result was
// computed from, so that it can be traced to its inputs and two results compared for having read
// the same bytes. `build`: the gpumux version and, for a binary built from a git checkout, the
// tree's `git describe` (build_info.h). `inputs`: per input file (trace, nodes CSV, calibration,
// mig-parted file, memory-profile library) its role, its name as the scenario gives it, its size
// and its SHA-256. A folder input (a pai2020 trace) is digested as the sorted list of its files'
// names and digests.
//
// Two builds write different `build` values from the same scenario and seed; everything else a
// run writes stays byte-identical (bench/same_outputs.sh and the golden test set `build` aside).
#pragma once

#include <nlohmann/json.hpp>

#include "scenarios/scenario.h"

namespace gpumux {

// {"version": "0.1.0", "git": "..."}: "git" only when built from a git checkout.
nlohmann::json build_json();

// {"role", "file", "bytes", "sha256"} of one input file. Digests are kept per process by path,
// size and modification time, so that a plan or a sweep reading one trace thousands of times
// hashes it once. Throws InputError naming a file it cannot read.
nlohmann::json input_file_json(const InputFile& file);

// [input_file_json(f), ...] in the scenario's order.
nlohmann::json input_files_json(const Scenario& scenario);

// {"build": build_json(), "inputs": input_files_json(scenario)}.
nlohmann::json provenance_json(const Scenario& scenario);

// Appends to provenance_json's object the inputs of another scenario of the same result (a
// compared model's calibration file, a planned size) that it does not list yet by role and file.
void add_provenance_inputs(nlohmann::json& provenance, const Scenario& scenario);

}  // namespace gpumux
