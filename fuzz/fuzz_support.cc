#include "fuzz/fuzz_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>


namespace gpumux::fuzz {

namespace {

// Made at first use, removed at normal exit (a crash leaves it: its files help to reproduce).
// Never destroyed: the exit handler that removes the folder runs after static destructors.
const std::string& scratch_dir() {
  static const std::string* const dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpumux-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(*dir, ignored);
    });
    return new std::string(pattern);
  }();
  return *dir;
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

void finding(const std::string& what) {
  std::cerr << "gpumux fuzz finding: " << what << std::endl;
  std::abort();
}

}  // namespace gpumux::fuzz
