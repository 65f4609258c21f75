// All-or-nothing output folders.
//
// A run (or a comparison, OutputKind) writes its files into a temporary sibling folder,
// DIR.tmp-<pid>, and commit() replaces
// DIR by it as a whole (one atomic rename where the kernel can exchange two paths): DIR then
// holds exactly this run's files, or, if the run fails or is stopped, exactly what it held
// before. While it writes, the run holds an advisory lock (flock) on DIR.lock, so a second run
// into the same folder fails at once instead of mixing files. Temporary folders and lock files
// are removed on failure, on SIGINT/SIGTERM/SIGHUP (signal_cleanup.h), and those left by a
// killed process (SIGKILL, power loss) are removed by the next run into the same folder once
// their process is gone.
#pragma once

#include <string>

#include "sim/base/created_folders.h"

namespace gpumux {

// An exclusive advisory lock on `dir`, held on the file DIR.lock (created next to DIR, with
// DIR's parent folders if needed; removed on release). Throws InputError naming the folder
// when another process holds it (no waiting), or when the lock file cannot be created.
// Parent folders it created are removed again on release (and on SIGINT/SIGTERM/SIGHUP), each
// only while empty, unless keep_parents() was called: a failed or stopped command leaves no
// empty folder it made.
class FolderLock {
 public:
  explicit FolderLock(const std::string& dir);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  // An output was committed into the parents: they stay.
  void keep_parents() { parents_.keep(); }

 private:
  void acquire(const std::string& dir);

  CreatedFolders parents_;  // first: destroyed last, after the lock file is gone
  std::string lock_path_;
  int fd_ = -1;
  int cleanup_ = -1;
};

// What an output folder holds, hence what an existing folder may hold to be replaced.
enum class OutputKind {
  kRun,         // a run's files (kRunOutputNames)
  kComparison,  // `compare --out`: kCompareOutputNames and <model>/seed-<n>/ run folders
  kPlan,        // `plan --out`: kPlanOutputNames and the deploy/ folder
  kPack,        // `pack --out`: kPackOutputNames
};

class OutputFolder {
 public:
  // Locks `dir`, removes stale DIR.tmp-<pid> / DIR.old-<pid> folders of processes that no longer
  // exist, and creates an empty temporary folder. Throws InputError when the folder is locked by
  // another run, when `dir` exists but is not a folder or holds anything other than a run's
  // outputs (kRunOutputNames: replacing it would delete someone's files), or when it names no
  // folder that can be replaced ("", ".", "..", "/").
  explicit OutputFolder(const std::string& dir, OutputKind kind = OutputKind::kRun);
  // Uncommitted: removes the temporary folder (DIR is untouched). Releases the lock.
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  // The path to write `name` to before commit().
  std::string file(const std::string& name) const;
  // Writes `text` as the file `name`, whole (sim/base/atomic_file.h), named DIR/name (DIR as
  // given) in an error.
  void write_text(const std::string& name, const std::string& text) const;
  const std::string& temp_path() const { return temp_; }
  // Replaces DIR by the temporary folder. Throws InputError if the rename fails.
  void commit();

 private:
  std::string shown_dir_;  // as given
  std::string dir_;
  std::string temp_;
  FolderLock lock_;
  int cleanup_ = -1;
  bool committed_ = false;
};

// The files a run folder (or a plan folder: plan.json, plan.txt) may hold; an existing folder
// with anything else is not replaced.
// The files `plan --out` writes at the top of its folder (beside the deploy/ folder).
inline constexpr const char* kPlanOutputNames[] = {"plan.json", "plan.txt", "report.html",
                                                   "fleet.json", "fleet.txt"};
inline constexpr const char* kRunOutputNames[] = {"summary.json",        "jobs.csv",
                                                  "timeseries.csv",      "slot_timeseries.csv",
                                                  "llm_timeseries.csv",  "plan.json",
                                                  "plan.txt",            "report.html"};

// The files `pack --out` writes.
inline constexpr const char* kPackOutputNames[] = {"pack.json", "pack.csv", "report.html"};

// The files a comparison folder may hold besides its run folders <model>/seed-<n>/.
inline constexpr const char* kCompareOutputNames[] = {"compare.csv", "compare.json",
                                                      "report.html"};

// Removes the siblings of `dir` named DIR.tmp-<pid> or DIR.old-<pid> whose process no longer
// exists (kill(pid, 0) fails with ESRCH). Returns how many were removed.
int remove_stale_temporaries(const std::string& dir);

}  // namespace gpumux
