// `provenance` in summary.json, compare.json and plan.json: the build that wrote the file and
// the SHA-256 of every input file; the build alone is what two builds may write differently,
// and `gpumux diff` does not compare it.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gpumux
