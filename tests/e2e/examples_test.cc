// Every example scenario validates and runs; the time-slicing example shows ping-pong.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

TEST(Examples, EveryExampleValidatesAndRuns) {
  int seen = 0;
  for (const auto& entry :
       testing::fs::directory_iterator(testing::source_dir() / "scenarios/examples")) {
    if (entry.path().extension() != ".json") continue;
    ++seen;
    const auto v = testing::run_cli({"validate", entry.path().string()});
    EXPECT_EQ(v.code, 0) << entry.path() << ": " << v.err;
    const auto r = testing::run_cli({"run", entry.path().string(), "--no-outputs"});
    EXPECT_EQ(r.code, 0) << entry.path() << ": " << r.err;
  }
  EXPECT_GE(seen, 2);
}

double overhead_of(const std::vector<std::string>& extra) {
  const auto dir = testing::temp_dir("pingpong");
  std::vector<std::string> args = {
      "run",
      (testing::source_dir() / "scenarios/examples/timeslice_pingpong.json").string(),
      "--out",
      dir.string(),
      "--quiet",
      "--set",
      "trace.generator.jobs=600"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = testing::run_cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(testing::read_file(dir / "summary.json"));
  testing::fs::remove_all(dir);
  return summary["metrics"]["sharing_overhead"].get<double>();
}

TEST(Examples, ShortKernelsPingPongAndLongKernelsDoNot) {
  const double short_kernels = overhead_of({});
  const double long_kernels = overhead_of({"--set", "trace.generator.kernel_us=5000"});
  EXPECT_GT(short_kernels, 0.15);
  EXPECT_LT(long_kernels, 0.05);
}

}  // namespace
}  // namespace gpumux
