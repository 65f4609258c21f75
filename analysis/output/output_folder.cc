#include "analysis/output/output_folder.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <span>
#include <system_error>

#include "sim/base/atomic_file.h"
#include "sim/base/input_error.h"
#include "sim/base/signal_cleanup.h"

namespace gpumux {

namespace {

namespace fs = std::filesystem;

std::string error_text(int e) { return std::strerror(e); }

// "out/run/" and "out//run" name the same folder as "out/run"; the sibling names are built on it.
std::string folder_path(const std::string& dir) {
  std::string p = fs::path(dir).lexically_normal().string();
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  // A link to a folder: replace the folder it names (renaming onto the link would replace the
  // link itself), and lock that folder, whichever name a run is given.
  std::error_code ec;
  if (!p.empty() && fs::is_symlink(p, ec)) {
    const fs::path target = fs::canonical(p, ec);
    if (!ec) p = target.string();
  }
  const std::string name = fs::path(p).filename().string();
  if (p.empty() || name.empty() || name == "." || name == ".." || p == "/") {
    throw InputError(dir.empty() ? std::string("--out") : dir, "",
                     "an output folder must be a named folder that can be replaced as a whole "
                     "(not '.', '..' or '/'): give e.g. --out out/run1");
  }
  return p;
}

bool process_gone(long pid) {
  return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

bool leftover_temporary(const std::string& name) {
  // Per-file temporaries (.jobs.csv.tmp-<pid>) of older versions of the writer.
  return name.size() > 1 && name[0] == '.' && name.find(".tmp-") != std::string::npos;
}

bool one_of(const std::string& name, std::span<const char* const> names) {
  for (const char* n : names) {
    if (name == n) return true;
  }
  return false;
}

// A comparison's run folder OUT/<model>: only seed-<n> folders of run outputs.
bool model_folder(const fs::path& dir) {
  std::error_code ec;
  for (const auto& seed : fs::directory_iterator(dir, ec)) {
    const std::string name = seed.path().filename().string();
    if (name.rfind("seed-", 0) != 0 || !seed.is_directory()) return false;
    for (const auto& f : fs::directory_iterator(seed.path(), ec)) {
      const std::string file = f.path().filename().string();
      if (!f.is_regular_file() || !one_of(file, kRunOutputNames)) return false;
    }
  }
  return !ec;
}

void check_replaceable(const std::string& dir, OutputKind kind) {
  std::error_code ec;
  const auto status = fs::symlink_status(dir, ec);
  if (ec || status.type() == fs::file_type::not_found) return;
  if (status.type() != fs::file_type::directory) {
    throw InputError(dir, "", "exists and is not a folder: give another --out");
  }
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    bool known = leftover_temporary(name);
    if (kind == OutputKind::kRun) {
      known = known || (entry.is_regular_file() && one_of(name, kRunOutputNames));
    } else if (kind == OutputKind::kPack) {
      known = known || (entry.is_regular_file() && one_of(name, kPackOutputNames));
    } else if (kind == OutputKind::kPlan) {
      known =
          known || (entry.is_regular_file() && one_of(name, kPlanOutputNames)) ||
          ((name == "deploy" || name == "fleet") && entry.is_directory() && !entry.is_symlink());
    } else {
      known = known || (entry.is_regular_file() && one_of(name, kCompareOutputNames)) ||
              (entry.is_directory() && !entry.is_symlink() && model_folder(entry.path()));
    }
    if (!known) {
      throw InputError(dir, "",
                       "holds '" + name + "', which no " +
                           (kind == OutputKind::kRun          ? "run"
                            : kind == OutputKind::kComparison ? "comparison"
                            : kind == OutputKind::kPack       ? "pack"
                                                              : "plan") +
                           " wrote: its outputs replace the folder as a whole, so they go only "
                           "into a new folder or one holding such outputs");
    }
  }
  if (ec) throw InputError(dir, "", "cannot list the folder: " + ec.message());
}

}  // namespace

FolderLock::FolderLock(const std::string& dir) : lock_path_(folder_path(dir) + ".lock") {
  const fs::path parent = fs::path(lock_path_).parent_path();
  std::error_code ec;
  // Parents made here are removed again (while empty) unless an output is committed into them.
  parents_.create(parent.string(), ec);
  if (ec) throw InputError(parent.string(), "", "cannot create folder: " + ec.message());
  acquire(dir);  // on a throw, parents_ is destroyed and removes what it made
}

void FolderLock::acquire(const std::string& dir) {
  // The holder removes the lock file on release; a file opened just before that is stale, so
  // the lock counts only if the path still names the locked file.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 && errno == ENOENT && attempt + 1 < 100) {
      // Another run's lock created the parent and removed it again, empty, as it failed (runs
      // of a sweep or a comparison in threads): create it again.
      std::error_code ec;
      const fs::path parent = fs::path(lock_path_).parent_path();
      if (!parent.empty()) fs::create_directories(parent, ec);
      continue;
    }
    if (fd < 0) {
      throw InputError(lock_path_, "", "cannot create the lock file: " + error_text(errno));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      ::close(fd);
      if (e == EWOULDBLOCK) {
        throw InputError(folder_path(dir), "",
                         "another gpumux run is writing this output folder (it holds " +
                             lock_path_ + "); wait for it to end or give another --out");
      }
      throw InputError(lock_path_, "", "cannot lock: " + error_text(e));
    }
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(lock_path_.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      fd_ = fd;
      cleanup_ = register_signal_cleanup(lock_path_, false);
      return;
    }
    ::close(fd);
  }
  throw InputError(lock_path_, "", "cannot lock: the lock file keeps changing");
}

FolderLock::~FolderLock() {
  unregister_signal_cleanup(cleanup_);
  ::unlink(lock_path_.c_str());  // while still held: see the constructor
  ::close(fd_);
  // parents_, destroyed after this body, removes the parent folders made for an output that
  // was not committed.
}

int remove_stale_temporaries(const std::string& dir) {
  const fs::path path(folder_path(dir));
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const std::string base = path.filename().string();
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    for (const std::string tag : {".tmp-", ".old-"}) {
      const std::string prefix = base + tag;
      if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string digits = name.substr(prefix.size());
      if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) {
        continue;
      }
      if (!process_gone(std::stol(digits))) continue;
      std::error_code ignored;
      if (fs::remove_all(entry.path(), ignored) > 0) ++removed;
    }
  }
  return removed;
}

OutputFolder::OutputFolder(const std::string& dir, OutputKind kind)
    : shown_dir_(dir),
      dir_(folder_path(dir)),
      temp_(dir_ + ".tmp-" + std::to_string(::getpid())),
      lock_(dir_) {
  remove_stale_temporaries(dir_);
  check_replaceable(dir_, kind);
  cleanup_ = register_signal_cleanup(temp_, true);
  std::error_code ec;
  fs::remove_all(temp_, ec);  // this process's own, from an earlier folder object
  if (!fs::create_directory(temp_, ec) || ec) {
    unregister_signal_cleanup(cleanup_);
    throw InputError(temp_, "",
                     "cannot create the temporary output folder: " +
                         (ec ? ec.message() : std::string("it exists")));
  }
}

OutputFolder::~OutputFolder() {
  if (!committed_) {
    std::error_code ignored;
    fs::remove_all(temp_, ignored);
  }
  unregister_signal_cleanup(cleanup_);
}

std::string OutputFolder::file(const std::string& name) const {
  return (fs::path(temp_) / name).string();
}

void OutputFolder::write_text(const std::string& name, const std::string& text) const {
  AtomicFile out(file(name), (fs::path(shown_dir_) / name).string());
  out.stream() << text;
  out.commit();
}

void OutputFolder::commit() {
  std::error_code ec;
  const bool existed = fs::exists(dir_, ec);
  if (!existed) {
    if (::rename(temp_.c_str(), dir_.c_str()) != 0) {
      throw InputError(dir_, "", "cannot move the outputs into place: " + error_text(errno));
    }
    committed_ = true;
    lock_.keep_parents();
    return;
  }
  // One atomic exchange; the old contents then sit at the temporary path and are removed.
  if (::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, dir_.c_str(), RENAME_EXCHANGE) != 0) {
    // File systems without exchange: two renames, DIR missing for an instant in between.
    const std::string old = dir_ + ".old-" + std::to_string(::getpid());
    if (::rename(dir_.c_str(), old.c_str()) != 0) {
      throw InputError(dir_, "", "cannot replace the previous outputs: " + error_text(errno));
    }
    if (::rename(temp_.c_str(), dir_.c_str()) != 0) {
      const int e = errno;
      ::rename(old.c_str(), dir_.c_str());
      throw InputError(dir_, "", "cannot move the outputs into place: " + error_text(e));
    }
    fs::remove_all(old, ec);
    committed_ = true;
    lock_.keep_parents();
    return;
  }
  fs::remove_all(temp_, ec);
  committed_ = true;
  lock_.keep_parents();
}

}  // namespace gpumux
