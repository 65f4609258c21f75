#include "analysis/output/output_folder.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/base/input_error.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("gpumux_output_folder_" + std::string(name) +
                                                  "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// A pid that belonged to a process that has ended (and been reaped).
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST(OutputFolder, CommitReplacesThePreviousFolderAsAWhole) {
  const fs::path root = fresh_dir("replace");
  const fs::path dir = root / "run";
  fs::create_directories(dir);
  write(dir / "summary.json", "old\n");
  write(dir / "timeseries.csv", "old series\n");  // this run writes none: it must go
  {
    OutputFolder folder(dir.string());
    write(folder.file("summary.json"), "new\n");
    EXPECT_EQ(read(dir / "summary.json"), "old\n");  // nothing visible before commit
    EXPECT_TRUE(fs::exists(root / "run.lock"));
    folder.commit();
  }
  EXPECT_EQ(names_in(dir), std::set<std::string>{"summary.json"});
  EXPECT_EQ(read(dir / "summary.json"), "new\n");
  EXPECT_EQ(names_in(root), std::set<std::string>{"run"});  // no temporary, no lock file
  fs::remove_all(root);
}

TEST(OutputFolder, UncommittedLeavesThePreviousFolderUntouched) {
  const fs::path root = fresh_dir("abandon");
  const fs::path dir = root / "run";
  fs::create_directories(dir);
  write(dir / "jobs.csv", "old jobs\n");
  {
    OutputFolder folder(dir.string());
    write(folder.file("jobs.csv"), "partial");
  }
  EXPECT_EQ(names_in(dir), std::set<std::string>{"jobs.csv"});
  EXPECT_EQ(read(dir / "jobs.csv"), "old jobs\n");
  EXPECT_EQ(names_in(root), std::set<std::string>{"run"});
  {
    OutputFolder folder((root / "new").string());  // a folder that did not exist stays absent
  }
  EXPECT_EQ(names_in(root), std::set<std::string>{"run"});
  fs::remove_all(root);
}

TEST(OutputFolder, ALockHeldElsewhereFailsAtOnceNamingTheFolder) {
  const fs::path root = fresh_dir("lock");
  const fs::path dir = root / "run";
  // flock locks belong to an open file description: this one conflicts like another process.
  const int fd = ::open((root / "run.lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  try {
    OutputFolder folder(dir.string());
    FAIL() << "expected the lock to be refused";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(dir.string()), std::string::npos) << what;
    EXPECT_NE(what.find("another gpumux run"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(dir));
  ::close(fd);
  { OutputFolder folder(dir.string()); }  // free again once released
  fs::remove_all(root);
}

TEST(OutputFolder, StaleTemporariesOfEndedProcessesAreRemoved) {
  const fs::path root = fresh_dir("stale");
  const fs::path dir = root / "run";
  const fs::path stale = root / ("run.tmp-" + std::to_string(dead_pid()));
  const fs::path stale_old = root / ("run.old-" + std::to_string(dead_pid()));
  const fs::path alive = root / ("run.tmp-" + std::to_string(::getppid()));
  const fs::path other = root / ("other.tmp-" + std::to_string(dead_pid()));
  for (const auto& p : {stale, stale_old, alive, other}) {
    fs::create_directories(p);
    write(p / "jobs.csv", "x");
  }
  {
    OutputFolder folder(dir.string());
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_FALSE(fs::exists(stale_old));
    EXPECT_TRUE(fs::exists(alive));  // its process may still be writing
    EXPECT_TRUE(fs::exists(other));  // another folder's
  }
  fs::remove_all(root);
}

TEST(OutputFolder, RefusesToReplaceAFolderWithOtherFiles) {
  const fs::path root = fresh_dir("foreign");
  const fs::path dir = root / "notes";
  fs::create_directories(dir / "sub");
  write(dir / "summary.json", "mine\n");
  EXPECT_THROW(OutputFolder(dir.string()), InputError);
  fs::remove_all(dir / "sub");
  write(dir / "todo.txt", "keep me\n");
  EXPECT_THROW(OutputFolder(dir.string()), InputError);
  EXPECT_EQ(read(dir / "todo.txt"), "keep me\n");
  write(root / "file", "");
  EXPECT_THROW(OutputFolder((root / "file").string()), InputError);
  EXPECT_THROW(OutputFolder("."), InputError);
  EXPECT_THROW(OutputFolder(""), InputError);
  EXPECT_EQ(names_in(root), (std::set<std::string>{"file", "notes"}));
  fs::remove_all(root);
}

TEST(OutputFolder, ALinkToAFolderReplacesTheFolderAndKeepsTheLink) {
  const fs::path root = fresh_dir("link");
  fs::create_directories(root / "real");
  write(root / "real" / "jobs.csv", "old\n");
  fs::create_directory_symlink("real", root / "link");
  {
    OutputFolder folder((root / "link").string());
    write(folder.file("summary.json"), "new\n");
    folder.commit();
  }
  EXPECT_TRUE(fs::is_symlink(root / "link"));
  EXPECT_EQ(names_in(root / "real"), std::set<std::string>{"summary.json"});
  EXPECT_EQ(read(root / "link" / "summary.json"), "new\n");
  fs::remove_all(root);
}

}  // namespace
}  // namespace gpumux
