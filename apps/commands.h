// The subcommands of `gpumux` and the mapping of errors to exit codes:
// 0 success, 2 bad input (InputError, bad command-line usage, an unknown command), 3 a check
// failed (`check`, `run --check`) or a plan found no size, 1 internal error.
#pragma once

#include <ostream>

namespace gpumux {

int run_command_line(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace gpumux
