// What every fuzz target shares: the input goes through the same code path as the command line
// (the `gpumux` subcommand itself where one reads the input, else the function it calls), bad
// input must end in an InputError (exit code 2), and anything else is a finding: a crash, a
// sanitizer report, an exception of another type (exit code 1, "internal error") or a timeout.
//
// Loaders that take a path read the input from a file in a scratch folder made once per process
// (libFuzzer runs inputs one after another in one process, so fixed names are safe).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpumux::fuzz {

// Writes `bytes` to `name` in the scratch folder, replacing it; returns the file's path.
std::string write_scratch_file(const std::string& name, std::string_view bytes);

// The path `name` would have in the scratch folder.
std::string scratch_path(const std::string& name);

// Splits an input holding several files: parts are separated by a line "=====" (so a corpus file
// stays readable text). Returns exactly `count` parts; missing ones are empty.
std::vector<std::string_view> split_files(std::string_view data, std::size_t count);

// Runs `gpumux args...` in this process (apps/commands.h). Exit codes 0, 2 and 3 are answers;
// exit code 1 (an internal error: an exception that is not an InputError) aborts with the
// error text, which libFuzzer reports as a crash.
void run_gpumux(const std::vector<std::string>& args);

// Aborts with `what`, a finding.
[[noreturn]] void finding(const std::string& what);

}  // namespace gpumux::fuzz
