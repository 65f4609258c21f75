// The folders a command creates to hold an output, removed again (each only while empty) unless
// the output is committed into them: a failed or stopped command leaves no empty folder it made
// (`--out deep/er/out` failing on a bad trace row once left deep/er/). The removal also happens
// on SIGINT/SIGTERM/SIGHUP (signal_cleanup.h), after the temporary files inside them.
#pragma once

#include <string>
#include <system_error>
#include <vector>

namespace gpumux {

class CreatedFolders {
 public:
  CreatedFolders() = default;
  // Removes the folders created, deepest first, unless keep() was called.
  ~CreatedFolders();
  CreatedFolders(const CreatedFolders&) = delete;
  CreatedFolders& operator=(const CreatedFolders&) = delete;

  // Creates `folder` with its missing parents (fs::create_directories), remembering the ones
  // that did not exist. On failure `ec` says why and those already made are removed.
  void create(const std::string& folder, std::error_code& ec);
  // The output is in place: the folders stay.
  void keep() { keep_ = true; }
  // Removes the folders created now (while empty), as the destructor would.
  void remove();

 private:
  std::vector<std::string> created_;  // deepest first
  int cleanup_ = -1;
  bool keep_ = false;
};

}  // namespace gpumux
