// The `gpumux` command line: parses arguments and calls the libraries. No logic of its own.
#include <iostream>

#include "apps/commands.h"

int main(int argc, char** argv) {
  return gpumux::run_command_line(argc, argv, std::cout, std::cerr);
}
