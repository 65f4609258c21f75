// summary.json `provenance`: what a run read, so that a result can be traced to its inputs and
// two results compared for having read the same bytes: per input file (trace, nodes CSV,
// calibration, mig-parted file, memory-profile library) its role, its name as the scenario
// gives it, its size and its SHA-256. A folder input (a pai2020 trace) is digested as the
// sorted list of its files' names and digests.
#pragma once

#include <nlohmann/json.hpp>

#include "scenarios/scenario.h"

namespace gpumux {

// {"inputs": [{"role", "file", "bytes", "sha256"}, ...]} in the scenario's order. Digests are
// kept per process by path, size and modification time, so that a plan or a sweep reading
// one trace thousands of times hashes it once. Throws InputError naming a file it cannot read.
nlohmann::json provenance_json(const Scenario& scenario);

}  // namespace gpumux
