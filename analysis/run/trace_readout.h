// Reading a scenario's whole trace without running it (`gpumux validate --full`): every row is
// parsed and checked as `gpumux run` would, so a bad row far down the file is found by a
// pre-merge hook instead of hours into a run.
//
// The rows go through the same readers and the row-level checks of the run's source chain that
// can reject a row: the trace reader (fields, sort order, duplicate ids), trace.filter (a filter
// that keeps no job), the workloads (a name trace.catalogue lacks) and the `services` completion (a service row lacking what it needs). The
// transforms that only rewrite times (load factor, batches, inflation) are not applied: they
// reject no row.
#pragma once

#include <cstdint>

#include "scenarios/scenario.h"

namespace gpumux {

struct TraceReadout {
  bool generated = false;      // the scenario's generator makes the jobs: there is no file to read
  std::uint64_t rows = 0;      // rows turned into jobs by the reader
  std::uint64_t skipped = 0;   // lines read but not jobs (blank, comment, skipped for a reason)
  std::uint64_t kept = 0;      // jobs left after trace.filter (rows when there is no filter)
};

// Reads the whole trace of `scenario`. Throws InputError naming file:line and the field for
// the first bad row (the same message `gpumux run` gives); nothing is written.
TraceReadout read_whole_trace(const Scenario& scenario);

}  // namespace gpumux
