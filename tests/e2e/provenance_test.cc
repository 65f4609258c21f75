// `provenance` in summary.json, compare.json and plan.json: the build that wrote the file and
// the SHA-256 of every input file; the build alone is what two builds may write differently,
// and `gpumux diff` does not compare it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::run_cli;
using testing::write_file;

const std::string kTrace = "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,1,20\n";
// `sha256sum` of kTrace.
const std::string kTraceSha = "dbc323afb85828b6619f4ef88bfb1ca0cef2302d8094e9aa2dcc52a420b120b6";

fs::path write_traced_scenario(const std::string& name) {
  const auto dir = testing::temp_dir(name);
  write_file(dir / "t.csv", kTrace);
  write_file(dir / "s.json", R"({"name": "p",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "t.csv"}})");
  return dir;
}

nlohmann::json parsed(const std::string& text) { return nlohmann::json::parse(text); }

void expect_build(const nlohmann::json& provenance) {
  ASSERT_TRUE(provenance.contains("build")) << provenance.dump();
  EXPECT_EQ(provenance["build"]["version"], GPUMUX_VERSION);
  // "git" only for a binary built from a checkout; never empty when there.
  if (provenance["build"].contains("git")) {
    EXPECT_FALSE(provenance["build"]["git"].get<std::string>().empty());
  }
}

TEST(Provenance, SummaryCompareAndPlanRecordTheBuildAndEachInput) {
  const auto dir = write_traced_scenario("provenance_files");
  const std::string scenario = (dir / "s.json").string();
  const auto run = run_cli({"run", scenario, "--out", (dir / "run").string(), "--quiet"});
  ASSERT_EQ(run.code, 0) << run.err;
  const auto summary = parsed(read_file(dir / "run" / "summary.json"))["provenance"];
  expect_build(summary);
  nlohmann::json inputs = nlohmann::json::array();
  inputs.push_back(
      {{"role", "trace.file"}, {"file", "t.csv"}, {"bytes", kTrace.size()}, {"sha256", kTraceSha}});
  EXPECT_EQ(summary["inputs"], inputs);

  // Two models x two seeds: four runs of one trace, listed once.
  const auto compare = run_cli({"compare", scenario, "--models", "exclusive,timeslice", "--seeds",
                                "2", "--out", (dir / "compare").string()});
  ASSERT_EQ(compare.code, 0) << compare.err;
  const auto compared = parsed(read_file(dir / "compare" / "compare.json"))["provenance"];
  EXPECT_EQ(compared, summary);  // the same build and inputs

  const auto plan =
      run_cli({"plan", scenario, "--models", "exclusive", "--objective", "queueing_delay_s.p95<=60",
               "--max-nodes", "2", "--no-sensitivity", "--out", (dir / "plan").string()});
  ASSERT_TRUE(plan.code == 0 || plan.code == 3) << plan.err;  // met or not: a plan either way
  EXPECT_EQ(parsed(read_file(dir / "plan" / "plan.json"))["provenance"], summary);

  // `gpumux --version` names the same build.
  const auto version = run_cli({"--version"});
  const nlohmann::json& build = summary["build"];
  EXPECT_NE(version.out.find(std::string("gpumux ") + GPUMUX_VERSION), std::string::npos)
      << version.out;
  if (build.contains("git")) {
    EXPECT_NE(version.out.find("(git " + build["git"].get<std::string>() + ")"), std::string::npos)
        << version.out;
  } else {
    EXPECT_EQ(version.out.find("(git "), std::string::npos) << version.out;
  }
  fs::remove_all(dir);
}

// Two builds write different `build` values: `gpumux diff` compares metrics, not the build, so
// the same run from two builds is the same.
TEST(Provenance, DiffDoesNotCompareTheBuild) {
  const auto dir = write_traced_scenario("provenance_diff");
  ASSERT_EQ(
      run_cli({"run", (dir / "s.json").string(), "--out", (dir / "a").string(), "--quiet"}).code,
      0);
  nlohmann::json other = parsed(read_file(dir / "a" / "summary.json"));
  other["provenance"]["build"] = {{"version", "9.9.9"}, {"git", "0123abc-dirty"}};
  write_file(dir / "b.json", other.dump(2));
  const auto r = run_cli({"diff", (dir / "a").string(), (dir / "b.json").string()});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  fs::remove_all(dir);
}

// A shell command's standard output, its last line break removed.
std::string output_of(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
    pclose(pipe);
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Runs cmake/build_info.cmake for `source` with `git` into `out`; returns the describe written.
std::string describe_written(const fs::path& source, const std::string& git, const fs::path& out) {
  const std::string command = std::string("'") + GPUMUX_CMAKE_COMMAND + "' -DSOURCE_DIR='" +
                              source.string() + "' -DGIT_EXECUTABLE='" + git + "' -DOUTPUT='" +
                              out.string() + "' -P '" +
                              (testing::source_dir() / "cmake" / "build_info.cmake").string() + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  const std::string text = read_file(out);
  const std::string open = "return \"";
  const auto from = text.find(open);
  if (from == std::string::npos) return "(no return in " + text + ")";
  const auto to = text.find('"', from + open.size());
  return text.substr(from + open.size(), to - from - open.size());
}

// The build's `git` comes from a script run at every build: for the top of a checkout its
// `git describe --always --dirty`; nothing for a folder inside a checkout (a tarball unpacked in
// another repository), outside any, or without git. The file keeps its time when its text is
// the same, so that nothing recompiles.
TEST(Provenance, BuildInfoDescribesTheTopOfACheckoutOnly) {
  const std::string git = GPUMUX_GIT_EXECUTABLE;
  if (git.empty()) GTEST_SKIP() << "git was not found when configuring";
  const auto dir = testing::temp_dir("build_info");
  const fs::path repo = dir / "repo";
  write_file(repo / "a.txt", "one\n");
  write_file(repo / "sub" / "b.txt", "two\n");
  const std::string in_repo = "cd '" + repo.string() + "' && '" + git + "' ";
  ASSERT_EQ(std::system((in_repo + "init -q && " + "'" + git + "' add . && '" + git +
                         "' -c user.name=t -c user.email=t@example.org commit -q -m one")
                            .c_str()),
            0);
  const std::string head = output_of(in_repo + "rev-parse --short HEAD");
  ASSERT_FALSE(head.empty());

  const fs::path out = dir / "build_info_git.cc";
  EXPECT_EQ(describe_written(repo, git, out), head);
  // Unchanged text: the file is not written again.
  const auto old_time = fs::last_write_time(out) - std::chrono::hours(1);
  fs::last_write_time(out, old_time);
  EXPECT_EQ(describe_written(repo, git, out), head);
  EXPECT_EQ(fs::last_write_time(out), old_time);
  // An edited tracked file: "-dirty", written again.
  write_file(repo / "a.txt", "changed\n");
  EXPECT_EQ(describe_written(repo, git, out), head + "-dirty");
  EXPECT_NE(fs::last_write_time(out), old_time);

  EXPECT_EQ(describe_written(repo / "sub", git, dir / "sub.cc"), "");
  fs::create_directories(dir / "plain");
  EXPECT_EQ(describe_written(dir / "plain", git, dir / "plain.cc"), "");
  EXPECT_EQ(describe_written(repo, "", dir / "no_git.cc"), "");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
