// Helpers for end-to-end tests: run the command line in-process, read files, temp folders.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "apps/commands.h"

namespace gpumux::testing {

namespace fs = std::filesystem;

inline fs::path source_dir() {
  const char* d = std::getenv("GPUMUX_SOURCE_DIR");
  return d ? fs::path(d) : fs::current_path();
}

// The folders temp_dir made, removed when the test program ends: CTest runs each test as a
// process of its own, so a run of the suite leaves the temporary folder as it found it.
struct TempDirs {
  std::vector<fs::path> made;
  TempDirs() = default;
  TempDirs(const TempDirs&) = delete;
  TempDirs& operator=(const TempDirs&) = delete;
  ~TempDirs() {
    for (const fs::path& d : made) {
      std::error_code ignored;
      fs::remove_all(d, ignored);
    }
  }
};

inline TempDirs& temp_dirs() {
  static TempDirs dirs;
  return dirs;
}

inline fs::path temp_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("gpumux_e2e_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  temp_dirs().made.push_back(d);
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
