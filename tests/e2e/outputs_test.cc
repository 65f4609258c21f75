// Outputs are all or nothing: a run that fails or is stopped leaves its output folder as it
// was, a successful one replaces it whole, and two runs never write one folder at once.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;
using testing::fs::path;

// Every file under `dir` with its bytes: equal snapshots mean byte-identical folders.
std::map<std::string, std::string> snapshot(const path& dir) {
  std::map<std::string, std::string> files;
  if (!testing::fs::exists(dir)) return files;
  for (const auto& e : testing::fs::recursive_directory_iterator(dir)) {
    files[e.path().lexically_relative(dir).string()] =
        e.is_regular_file() ? testing::read_file(e.path()) : "<folder>";
  }
  return files;
}

std::string trace_rows(int good_rows, bool bad_last_row) {
  std::string text = "id,submit_s,gpus,runtime_s\n";
  for (int i = 0; i < good_rows; ++i) {
    text += "j" + std::to_string(i) + "," + std::to_string(i * 30) + ",1,600\n";
  }
  if (bad_last_row) text += "bad," + std::to_string(good_rows * 30) + ",two,600\n";
  return text;
}

const char* kOutputsScenario = R"({"name": "outputs",
  "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 4, "device": "T4"}]},
  "trace": {"file": "trace.csv", "defaults": {"memory_mib": 4096, "sm_util": 0.5}},
  "outputs": {"timeseries_interval_s": 60}})";

TEST(Outputs, ARunFailingMidWayLeavesThePreviousFolderByteIdentical) {
  const auto dir = testing::temp_dir("outputs_midway");
  testing::write_file(dir / "s.json", kOutputsScenario);
  testing::write_file(dir / "trace.csv", trace_rows(3000, false));
  const auto first = run_cli(
      {"run", (dir / "s.json").string(), "--out", (dir / "out").string(), "--quiet", "--report"});
  ASSERT_EQ(first.code, 0) << first.err;
  const auto before = snapshot(dir / "out");
  ASSERT_EQ(before.size(), 4u);  // summary.json, jobs.csv, timeseries.csv, report.html

  // The bad row is read only after 3000 jobs have been simulated and written.
  testing::write_file(dir / "trace.csv", trace_rows(3000, true));
  const auto failed = run_cli(
      {"run", (dir / "s.json").string(), "--out", (dir / "out").string(), "--quiet", "--report"});
  EXPECT_EQ(failed.code, 2);
  EXPECT_NE(failed.err.find("trace.csv:3002"), std::string::npos) << failed.err;
  EXPECT_EQ(snapshot(dir / "out"), before);

  // Into a new folder: nothing at all, no temporary and no lock file beside it.
  const auto fresh =
      run_cli({"run", (dir / "s.json").string(), "--out", (dir / "fresh").string(), "--quiet"});
  EXPECT_EQ(fresh.code, 2);
  std::set<std::string> names;
  for (const auto& e : testing::fs::directory_iterator(dir)) {
    names.insert(e.path().filename().string());
  }
  EXPECT_EQ(names, (std::set<std::string>{"out", "s.json", "trace.csv"}));
  testing::fs::remove_all(dir);
}

TEST(Outputs, ATimeseriesCapErrorLeavesThePreviousFolderByteIdentical) {
  const auto dir = testing::temp_dir("outputs_cap");
  testing::write_file(dir / "s.json", kOutputsScenario);
  testing::write_file(dir / "trace.csv", trace_rows(10, false));
  ASSERT_EQ(
      run_cli({"run", (dir / "s.json").string(), "--out", (dir / "out").string(), "--quiet"}).code,
      0);
  const auto before = snapshot(dir / "out");
  // 1e8 s at 60 s per row is past the 1,000,000-row cap.
  testing::write_file(dir / "trace.csv", trace_rows(10, false) + "long,400,1,100000000\n");
  const auto r =
      run_cli({"run", (dir / "s.json").string(), "--out", (dir / "out").string(), "--quiet"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("timeseries_interval_s"), std::string::npos) << r.err;
  EXPECT_EQ(snapshot(dir / "out"), before);
  testing::fs::remove_all(dir);
}

TEST(Outputs, ASuccessfulRunReplacesThePreviousFolderWhole) {
  const auto dir = testing::temp_dir("outputs_replace");
  testing::write_file(dir / "s.json", kOutputsScenario);
  testing::write_file(dir / "trace.csv", trace_rows(10, false));
  ASSERT_EQ(run_cli({"run", (dir / "s.json").string(), "--out", (dir / "out").string(), "--quiet",
                     "--report"})
                .code,
            0);
  const auto r = run_cli({"run", (dir / "s.json").string(), "--out", (dir / "out").string(),
                          "--quiet", "--set", "outputs.timeseries_csv=false"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto after = snapshot(dir / "out");
  std::set<std::string> names;
  for (const auto& [name, bytes] : after) names.insert(name);
  // timeseries.csv and report.html of the first run are gone.
  EXPECT_EQ(names, (std::set<std::string>{"jobs.csv", "summary.json"}));
  testing::fs::remove_all(dir);
}

TEST(Outputs, AFolderInUseByAnotherRunFailsAtOnce) {
  const auto dir = testing::temp_dir("outputs_lock");
  testing::write_file(dir / "s.json", kOutputsScenario);
  testing::write_file(dir / "trace.csv", trace_rows(10, false));
  // A child process holds the lock as a run would, until told to go.
  int to_child[2], from_child[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(from_child), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    const int fd = ::open((dir / "out.lock").c_str(), O_RDWR | O_CREAT, 0644);
    const char ok = (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0) ? 'y' : 'n';
    (void)!::write(from_child[1], &ok, 1);
    char go = 0;
    (void)!::read(to_child[0], &go, 1);
    ::_exit(0);
  }
  char ok = 0;
  ASSERT_EQ(::read(from_child[0], &ok, 1), 1);
  ASSERT_EQ(ok, 'y');
  const auto run =
      run_cli({"run", (dir / "s.json").string(), "--out", (dir / "out").string(), "--quiet"});
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find((dir / "out").string()), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("another gpumux run"), std::string::npos) << run.err;
  EXPECT_FALSE(testing::fs::exists(dir / "out"));
  const auto compare = run_cli({"compare", (dir / "s.json").string(), "--models", "exclusive",
                                "--out", (dir / "out").string()});
  EXPECT_EQ(compare.code, 2);
  EXPECT_NE(compare.err.find("another gpumux run"), std::string::npos) << compare.err;
  (void)!::write(to_child[1], "g", 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(
      run_cli({"run", (dir / "s.json").string(), "--out", (dir / "out").string(), "--quiet"}).code,
      0);
  testing::fs::remove_all(dir);
}

TEST(Outputs, AStaleTemporaryFolderOfAnEndedRunIsRemoved) {
  const auto dir = testing::temp_dir("outputs_stale");
  testing::write_file(dir / "s.json", kOutputsScenario);
  testing::write_file(dir / "trace.csv", trace_rows(10, false));
  const pid_t ended = ::fork();
  if (ended == 0) ::_exit(0);
  ::waitpid(ended, nullptr, 0);
  const path stale = dir / ("out.tmp-" + std::to_string(ended));
  testing::write_file(stale / "jobs.csv", "half a file");
  const auto r =
      run_cli({"run", (dir / "s.json").string(), "--out", (dir / "out").string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(testing::fs::exists(stale));
  testing::fs::remove_all(dir);
}

TEST(Outputs, AFullDiskLeavesThePreviousFolderByteIdentical) {
  const auto dir = testing::temp_dir("outputs_full");
  testing::write_file(dir / "s.json", kOutputsScenario);
  testing::write_file(dir / "trace.csv", trace_rows(3000, false));
  const std::string scenario = (dir / "s.json").string();
  const std::string out = (dir / "out").string();
  ASSERT_EQ(run_cli({"run", scenario, "--out", out, "--quiet"}).code, 0);
  const auto before = snapshot(dir / "out");
  // A file size limit stands in for a full disk: jobs.csv (about 300 kB) cannot be written whole.
  int err_pipe[2];
  ASSERT_EQ(::pipe(err_pipe), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(err_pipe[1], STDERR_FILENO);
    const rlimit limit{64 * 1024, 64 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::signal(SIGXFSZ, SIG_IGN);  // writes past the limit fail with EFBIG instead
    ::execl(GPUMUX_BINARY, "gpumux", "run", scenario.c_str(), "--out", out.c_str(), "--quiet",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(err_pipe[1]);
  int status = 0;
  ::waitpid(child, &status, 0);
  std::string err(4096, '\0');
  const ssize_t n = ::read(err_pipe[0], err.data(), err.size());
  err.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  ::close(err_pipe[0]);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status << " " << err;
  // Named by its final path, not the temporary folder's.
  EXPECT_NE(err.find(out + "/jobs.csv: write failed"), std::string::npos) << err;
  EXPECT_EQ(snapshot(dir / "out"), before);
  std::set<std::string> names;
  for (const auto& e : testing::fs::directory_iterator(dir)) {
    names.insert(e.path().filename().string());
  }
  EXPECT_EQ(names, (std::set<std::string>{"out", "s.json", "trace.csv"}));
  testing::fs::remove_all(dir);
}

// The gpumux binary, stopped by `sig` while it writes a long run: no folder, temporary or lock.
void stop_a_long_run(int sig) {
  const auto dir = testing::temp_dir("outputs_signal_" + std::to_string(sig));
  testing::write_file(dir / "long.json", R"({"name": "long",
    "cluster": {"node_groups": [{"nodes": 4, "gpus_per_node": 8, "device": "V100M32"}]},
    "trace": {"generator": {"jobs": 20000000}}})");
  const std::string scenario = (dir / "long.json").string();
  const std::string out = (dir / "out").string();
  const pid_t child = ::fork();
  if (child == 0) {
    ::execl(GPUMUX_BINARY, "gpumux", "run", scenario.c_str(), "--out", out.c_str(), "--quiet",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(child, 0);
  // Wait until the run has written part of its jobs.csv into its temporary folder.
  const path temp = dir / ("out.tmp-" + std::to_string(child));
  bool writing = false;
  for (int i = 0; i < 300 && !writing; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::error_code ec;
    for (const auto& e : testing::fs::directory_iterator(temp, ec)) {
      writing = writing || (e.is_regular_file() && e.file_size() > 0);
    }
  }
  EXPECT_TRUE(writing) << "the run never started writing " << temp;
  ::kill(child, sig);
  int status = 0;
  for (int i = 0; i < 500 && ::waitpid(child, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (::waitpid(child, &status, WNOHANG) == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    FAIL() << "the run did not stop on signal " << sig;
  }
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
  std::set<std::string> names;
  for (const auto& e : testing::fs::directory_iterator(dir)) {
    names.insert(e.path().filename().string());
  }
  EXPECT_EQ(names, std::set<std::string>{"long.json"});
  testing::fs::remove_all(dir);
}

TEST(Outputs, SigtermDuringALongRunLeavesNoTemporaryFolder) { stop_a_long_run(SIGTERM); }

TEST(Outputs, SigintDuringALongRunLeavesNoTemporaryFolder) { stop_a_long_run(SIGINT); }

// summary.json names each input file with its size and SHA-256: one changed byte of the trace
// changes its digest, and the same bytes give the same digest.
TEST(Outputs, ProvenanceRecordsTheDigestOfEachInputFile) {
  const auto dir = testing::temp_dir("provenance");
  const std::string trace = "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,1,20\n";
  testing::write_file(dir / "t.csv", trace);
  testing::write_file(dir / "s.json", R"({"name": "p",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "t.csv"}})");
  auto inputs = [&] {
    const auto r = testing::run_cli({"run", (dir / "s.json").string(), "--no-outputs",
                                     "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out)["provenance"]["inputs"];
  };
  const auto first = inputs();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0]["role"], "trace.file");
  EXPECT_EQ(first[0]["file"], "t.csv");
  EXPECT_EQ(first[0]["bytes"], trace.size());
  // `sha256sum` of the three lines above.
  EXPECT_EQ(first[0]["sha256"], "dbc323afb85828b6619f4ef88bfb1ca0cef2302d8094e9aa2dcc52a420b120b6");
  EXPECT_EQ(inputs(), first);
  std::string changed = trace;
  changed[changed.size() - 2] = '1';  // b's runtime 20 -> 21: same size, one byte
  testing::write_file(dir / "t.csv", changed);
  // A later modification time keeps the per-process cache from answering for the old bytes.
  testing::fs::last_write_time(dir / "t.csv", testing::fs::last_write_time(dir / "t.csv") +
                                                  std::chrono::seconds(2));
  const auto second = inputs();
  EXPECT_EQ(second[0]["bytes"], trace.size());
  EXPECT_NE(second[0]["sha256"], first[0]["sha256"]);
  testing::fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
