// A file that appears at its final path only when complete: written to a temporary file in the
// same folder and renamed on commit(). Destroyed uncommitted, it removes the temporary, so a
// failed run never leaves a truncated or partial result behind. The temporary is also removed on
// SIGINT/SIGTERM/SIGHUP (signal_cleanup.h), and one left by a process that no longer exists
// (SIGKILL) is removed when the same path is written again.
#pragma once

#include <fstream>
#include <string>

#include "sim/base/created_folders.h"

namespace gpumux {

class AtomicFile {
 public:
  // Creates the folder if needed (removed again, while empty, if the file is never committed).
  // Throws InputError when the file cannot be created. Errors name
  // `shown` when given (a file in a temporary output folder is named by its final path).
  explicit AtomicFile(std::string path, std::string shown = "");
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ofstream& stream() { return out_; }
  // Flushes, closes and renames into place. Throws InputError on a write failure.
  void commit();

 private:
  CreatedFolders parents_;  // first: destroyed after the temporary file is removed
  std::string path_;
  std::string shown_;
  std::string temp_path_;
  std::ofstream out_;
  bool committed_ = false;
  int cleanup_ = -1;  // signal_cleanup.h handle
};

}  // namespace gpumux
