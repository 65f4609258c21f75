#include "sim/base/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/base/input_error.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

fs::path fresh_atomic_dir(const char* name) {
  const fs::path d = fs::temp_directory_path() /
                     ("gpumux_atomic_" + std::string(name) + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

TEST(AtomicFile, AppearsOnlyOnCommit) {
  const fs::path dir = fresh_atomic_dir("commit");
  const fs::path target = dir / "sub" / "result.txt";
  {
    AtomicFile f(target.string());
    f.stream() << "hello\n";
    EXPECT_FALSE(fs::exists(target));
    f.commit();
  }
  ASSERT_TRUE(fs::exists(target));
  std::ifstream in(target);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "hello");
  EXPECT_EQ(std::distance(fs::directory_iterator(target.parent_path()), fs::directory_iterator()),
            1);
  fs::remove_all(dir);
}

TEST(AtomicFile, UncommittedLeavesNothingBehind) {
  const fs::path dir = fresh_atomic_dir("abandon");
  fs::create_directories(dir);
  {
    AtomicFile f((dir / "result.txt").string());
    f.stream() << "partial";
  }
  EXPECT_TRUE(fs::is_empty(dir));
  // The folders it made for the file go too (issue 31: a failed `generate -o deep/er/x.csv`
  // left deep/er/), but not one that was there before, nor one that holds something else.
  {
    AtomicFile f((dir / "deep" / "er" / "result.txt").string());
    f.stream() << "partial";
    EXPECT_TRUE(fs::is_directory(dir / "deep" / "er"));
  }
  EXPECT_TRUE(fs::is_empty(dir));
  {
    AtomicFile f((dir / "deep" / "er" / "result.txt").string());
    std::ofstream(dir / "deep" / "other.txt") << "x";
  }
  EXPECT_FALSE(fs::exists(dir / "deep" / "er"));
  EXPECT_TRUE(fs::exists(dir / "deep" / "other.txt"));
  fs::remove_all(dir);
}

TEST(AtomicFile, UnwritableLocationIsAnInputError) {
  const fs::path dir = fresh_atomic_dir("blocked");
  fs::create_directories(dir);
  std::ofstream(dir / "file") << "x";
  // A folder path that runs through a regular file cannot be created.
  EXPECT_THROW(AtomicFile((dir / "file" / "out.txt").string()), InputError);
  fs::remove_all(dir);
}

TEST(AtomicFile, StaleTemporaryOfAnEndedProcessIsRemoved) {
  const fs::path dir = fresh_atomic_dir("stale");
  fs::create_directories(dir);
  const pid_t ended = ::fork();
  if (ended == 0) ::_exit(0);
  ::waitpid(ended, nullptr, 0);
  const fs::path stale = dir / (".result.txt.tmp-" + std::to_string(ended));
  const fs::path alive = dir / (".result.txt.tmp-" + std::to_string(::getppid()));
  for (const auto& p : {stale, alive}) std::ofstream(p) << "half";
  {
    AtomicFile f((dir / "result.txt").string());
    f.stream() << "whole\n";
    f.commit();
  }
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(alive));  // its process may still be writing
  EXPECT_TRUE(fs::exists(dir / "result.txt"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
