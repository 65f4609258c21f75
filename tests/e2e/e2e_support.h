// Helpers for end-to-end tests: run the command line in-process, read files, temp folders.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/commands.h"

namespace gpumux::testing {

namespace fs = std::filesystem;

inline fs::path source_dir() {
  const char* d = std::getenv("GPUMUX_SOURCE_DIR");
  return d ? fs::path(d) : fs::current_path();
}

inline fs::path temp_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("gpumux_e2e_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

struct CliResult {
  int code = -1;
  std::string out, err;
};

inline CliResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "gpumux");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  CliResult r;
  r.code = run_command_line(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace gpumux::testing
