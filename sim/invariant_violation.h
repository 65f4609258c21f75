// A broken invariant of the simulation (`--check-invariants`): a bug, never bad input. The
// message names the job, the GPU and the simulated time, so that the run can be reproduced and
// the step that broke it found. The command line reports it as an internal error (exit 1).
#pragma once

#include <stdexcept>
#include <string>

namespace gpumux {

class InvariantViolation : public std::logic_error {
 public:
  explicit InvariantViolation(const std::string& what)
      : std::logic_error("invariant violated: " + what) {}
};

}  // namespace gpumux
