// A file a run reads besides the scenario itself: recorded by the section that opens it, for the
// run's provenance (summary.json `inputs`) and the sweeps' digests (docs/sweeps.md), so that a
// file edited between two shards of a sweep is noticed.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace gpumux {

struct InputFile {
  std::string role;   // the scenario key naming it, e.g. "trace.file"
  std::string shown;  // as the scenario gives it
  std::string path;   // resolved against the scenario's folder
};

// The role of the file named at `where` ("scenario.json#/services/by_id/a/request_times"):
// its JSON pointer as a dotted key ("services.by_id.a.request_times").
inline std::string input_role(const std::string& where) {
  const auto hash = where.find('#');
  std::string pointer = hash == std::string::npos ? where : where.substr(hash + 1);
  if (!pointer.empty() && pointer.front() == '/') pointer.erase(0, 1);
  for (char& c : pointer) {
    if (c == '/') c = '.';
  }
  return pointer;
}

// The one way a scenario section names a file it will read: `shown` (as the scenario gives it)
// resolved against the scenario's folder `base_dir` (an absolute path, or any path when
// base_dir is empty, stays as it is), recorded in `files` under `role`. Returns the resolved
// path. tests/architecture/input_files_test.cc fails when a section resolves a path another way.
inline std::string input_path(std::vector<InputFile>& files, std::string role,
                              const std::string& shown, const std::string& base_dir) {
  namespace fs = std::filesystem;
  std::string path = shown.empty() || fs::path(shown).is_absolute() || base_dir.empty()
                         ? shown
                         : (fs::path(base_dir) / shown).lexically_normal().string();
  files.push_back({std::move(role), shown, path});
  return path;
}

}  // namespace gpumux
