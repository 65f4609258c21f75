#include "sim/base/atomic_file.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "sim/base/signal_cleanup.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace fs = std::filesystem;

// Removes .NAME.tmp-<pid> beside `target` when process <pid> no longer exists (killed with
// SIGKILL, or the machine stopped): nothing else would ever remove it.
void remove_stale_temporaries(const fs::path& target) {
  const std::string prefix = "." + target.filename().string() + ".tmp-";
  std::error_code ec;
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    fs::remove(entry.path(), ignored);
  }
}

AtomicFile::AtomicFile(std::string path, std::string shown)
    : path_(std::move(path)), shown_(shown.empty() ? path_ : std::move(shown)) {
  const fs::path target(path_);
  std::error_code ec;
  // Folders made here are removed again (while empty) when the file is not committed.
  if (target.has_parent_path()) parents_.create(target.parent_path().string(), ec);
  if (ec) throw InputError(shown_, "", "cannot create folder: " + ec.message());
  temp_path_ = (target.parent_path() /
                ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid())))
                   .string();
  remove_stale_temporaries(target);
  cleanup_ = register_signal_cleanup(temp_path_, false);
  out_.open(temp_path_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    unregister_signal_cleanup(cleanup_);
    throw InputError(shown_, "", "cannot write file");
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    out_.close();
    std::error_code ec;
    fs::remove(temp_path_, ec);
  }
  unregister_signal_cleanup(cleanup_);
}

void AtomicFile::commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok) throw InputError(shown_, "", "write failed (disk full?)");
  std::error_code ec;
  fs::rename(temp_path_, path_, ec);
  if (ec) throw InputError(shown_, "", "cannot move the result into place: " + ec.message());
  committed_ = true;
  parents_.keep();
}

}  // namespace gpumux
