// The subcommands of `gpumux` and the mapping of errors to exit codes:
// 0 success, 2 bad input (InputError, bad command-line usage, an unknown command), 3 a check
// failed (`check`, `run --check`) or a plan found no size, 1 internal error.
#pragma once

#include <ostream>

namespace gpumux {

int run_command_line(int argc, char** argv, std::ostream& out, std::ostream& err);

// The same commands for a caller that handles errors itself (the Python package): a malformed
// command line throws InputError (where "command line"), and InputError and every other
// exception pass through instead of becoming an exit code. Returns 0, or 3 when a check fails
// (see above); --help and --version print to `out` and return 0.
int run_command_line_or_throw(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace gpumux
