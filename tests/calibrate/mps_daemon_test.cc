#include "calibrate/probe/mps_daemon.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace gpumux::calibration {
namespace {

namespace fs = std::filesystem;

// A stand-in for nvidia-cuda-mps-control: `-d` creates the control socket (a plain file
// here) in CUDA_MPS_PIPE_DIRECTORY and logs to CUDA_MPS_LOG_DIRECTORY; `quit` on stdin
// removes it. It fails when either variable is missing, as the real one would misbehave.
std::string fake_control(const std::string& dir, bool quit_works = true) {
  fs::create_directories(dir);
  const std::string path = dir + "/fake-mps-control";
  std::ofstream(path)
      << "#!/bin/sh\n"
         "[ -n \"$CUDA_MPS_PIPE_DIRECTORY\" ] && [ -n \"$CUDA_MPS_LOG_DIRECTORY\" ] "
         "|| exit 3\n"
         "if [ \"$1\" = \"-d\" ]; then\n"
         "  touch \"$CUDA_MPS_PIPE_DIRECTORY/control\"\n"
         "  echo \"started for $CUDA_VISIBLE_DEVICES\" > \"$CUDA_MPS_LOG_DIRECTORY/control.log\"\n"
         "  exit 0\nfi\n"
         "read cmd\n"
         "[ \"$cmd\" = quit ] || exit 4\n" +
             std::string(quit_works ? "rm -f \"$CUDA_MPS_PIPE_DIRECTORY/control\"\n" : "") +
             "exit 0\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

std::string test_dir() {
  return (fs::temp_directory_path() /
          ("gpumux-mps-test-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name()))
      .string();
}

TEST(MpsDaemon, StartsWithPrivateFoldersAndQuits) {
  const std::string dir = test_dir();
  MpsDaemon d(fake_control(dir));
  ASSERT_EQ(d.start("3"), "");
  EXPECT_TRUE(d.running());
  EXPECT_TRUE(fs::exists(d.pipe_dir() + "/control"));
  const EnvVars env = d.client_env();
  ASSERT_EQ(env.size(), 3u);
  EXPECT_EQ(env[0].first, "CUDA_MPS_PIPE_DIRECTORY");
  EXPECT_EQ(env[0].second, d.pipe_dir());
  EXPECT_EQ(env[1].first, "CUDA_MPS_LOG_DIRECTORY");
  EXPECT_EQ(env[2], (std::pair<std::string, std::string>{"CUDA_VISIBLE_DEVICES", ""}));
  const std::string root = fs::path(d.pipe_dir()).parent_path().string();
  EXPECT_LT(d.pipe_dir().size(), 80u);  // Unix socket paths are short
  EXPECT_EQ(d.stop(dir + "/logs"), "");
  EXPECT_FALSE(d.running());
  EXPECT_FALSE(fs::exists(root));  // temp folder removed
  std::ifstream log(dir + "/logs/control.log");
  std::string line;
  std::getline(log, line);
  EXPECT_EQ(line, "started for 3");
  EXPECT_EQ(d.stop(), "");  // idempotent
  fs::remove_all(dir);
}

TEST(MpsDaemon, MissingControlProgramIsReportedAndLeavesNothing) {
  MpsDaemon d("/nonexistent/nvidia-cuda-mps-control");
  const std::string err = d.start("0");
  EXPECT_NE(err.find("failed"), std::string::npos) << err;
  EXPECT_FALSE(d.running());
}

TEST(MpsDaemon, DaemonThatDoesNotGoAwayIsReported) {
  const std::string dir = test_dir();
  MpsDaemon d(fake_control(dir, /*quit_works=*/false), /*quit_wait_s=*/0.3);
  ASSERT_EQ(d.start("0"), "");
  const std::string pipe = d.pipe_dir();
  const std::string err = d.stop();
  EXPECT_NE(err.find("still present"), std::string::npos) << err;
  fs::remove_all(fs::path(pipe).parent_path());
  fs::remove_all(dir);
}

TEST(MpsDaemon, DestructorQuitsARunningDaemon) {
  const std::string dir = test_dir();
  std::string pipe;
  {
    MpsDaemon d(fake_control(dir));
    ASSERT_EQ(d.start("0"), "");
    pipe = d.pipe_dir();
  }
  EXPECT_FALSE(fs::exists(pipe + "/control"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux::calibration
