// A broken invariant of the simulation (`--check-invariants`): a bug, never bad input. The
// message names the job, the GPU and the simulated time, so that the run can be reproduced and
// the step that broke it found. The command line reports it as an internal error (exit 1).
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

#include "sim/base/units.h"

namespace gpumux {

class InvariantViolation : public std::logic_error {
 public:
  explicit InvariantViolation(const std::string& what)
      : std::logic_error("invariant violated: " + what) {}
};

// A simulated time as the messages name it: "t=12.500000 s" (microsecond precision).
inline std::string invariant_time_text(Time now) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "t=%.6f s", now.seconds());
  return buf;
}

}  // namespace gpumux
