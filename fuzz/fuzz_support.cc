#include "fuzz/fuzz_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "apps/commands.h"

namespace gpumux::fuzz {

namespace {

// Made at first use, removed at normal exit (a crash leaves it: its files help to reproduce).
const std::string& scratch_dir() {
  static const std::string dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpumux-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_dir(), ignored);
    });
    return pattern;
  }();
  return dir;
}

}  // namespace

std::string scratch_path(const std::string& name) { return scratch_dir() + "/" + name; }

std::string write_scratch_file(const std::string& name, std::string_view bytes) {
  const std::string path = scratch_path(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) finding("cannot write the scratch file " + path);
  return path;
}

std::vector<std::string_view> split_files(std::string_view data, std::size_t count) {
  static constexpr std::string_view kSeparator = "\n=====\n";
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < count) {
    const std::size_t at = data.find(kSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(data.substr(0, at + 1));  // the part keeps its last newline
    data.remove_prefix(at + kSeparator.size());
  }
  parts.push_back(data);
  parts.resize(count);
  return parts;
}

void run_gpumux(const std::vector<std::string>& args) {
  std::vector<std::string> words{"gpumux"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  const int code =
      run_command_line(static_cast<int>(words.size()), argv.data(), out, err);
  if (code == 1) finding("exit code 1 from gpumux:\n" + err.str());
}

void finding(const std::string& what) {
  std::cerr << "gpumux fuzz finding: " << what << std::endl;
  std::abort();
}

}  // namespace gpumux::fuzz
