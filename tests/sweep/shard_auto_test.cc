// `gpumux sweep --shard auto`: the shard read from a Slurm array job's or a Kubernetes Indexed
// Job's environment, and the errors when it is absent or inconsistent.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <string>

#include "analysis/sweep/shard_environment.h"
#include "sim/base/input_error.h"
#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

EnvironmentLookup lookup_environment(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

// The message of the InputError `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ShardAuto, SlurmArrayFromMinAndMax) {
  const auto s = shard_from_environment(lookup_environment({{"SLURM_ARRAY_TASK_ID", "5"},
                                                            {"SLURM_ARRAY_TASK_MIN", "4"},
                                                            {"SLURM_ARRAY_TASK_MAX", "7"},
                                                            {"SLURM_ARRAY_TASK_COUNT", "4"}}),
                                        std::nullopt);
  EXPECT_EQ(s.index, 1u);
  EXPECT_EQ(s.count, 4u);
}

TEST(ShardAuto, SlurmArrayFromCountAlone) {
  const auto s = shard_from_environment(
      lookup_environment({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}), 3);
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 3u);
}

TEST(ShardAuto, KubernetesIndexedJobWithACount) {
  const auto by_option =
      shard_from_environment(lookup_environment({{"JOB_COMPLETION_INDEX", "3"}}), 8);
  EXPECT_EQ(by_option.index, 3u);
  EXPECT_EQ(by_option.count, 8u);
  const auto by_variable = shard_from_environment(
      lookup_environment({{"JOB_COMPLETION_INDEX", "0"}, {"GPUMUX_SHARD_COUNT", "2"}}),
      std::nullopt);
  EXPECT_EQ(by_variable.index, 0u);
  EXPECT_EQ(by_variable.count, 2u);
  // The option wins over the variable.
  EXPECT_EQ(shard_from_environment(
                lookup_environment({{"JOB_COMPLETION_INDEX", "0"}, {"GPUMUX_SHARD_COUNT", "2"}}), 5)
                .count,
            5u);
}

TEST(ShardAuto, AbsentOrInconsistentEnvironmentsAreErrors) {
  EXPECT_NE(error_of([] {
              shard_from_environment(lookup_environment({}), std::nullopt);
            }).find("no array task found"),
            std::string::npos);
  EXPECT_NE(
      error_of([] {
        shard_from_environment(lookup_environment({{"JOB_COMPLETION_INDEX", "1"}}), std::nullopt);
      }).find("--shard-count"),
      std::string::npos);
  EXPECT_NE(error_of([] {
              shard_from_environment(lookup_environment({{"JOB_COMPLETION_INDEX", "4"}}), 4);
            }).find("index 4 is not below the count 4"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              shard_from_environment(
                  lookup_environment({{"JOB_COMPLETION_INDEX", "1"}, {"SLURM_ARRAY_TASK_ID", "1"}}),
                  2);
            }).find("both"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              shard_from_environment(lookup_environment({{"SLURM_ARRAY_TASK_ID", "one"},
                                                         {"SLURM_ARRAY_TASK_COUNT", "2"}}),
                                     std::nullopt);
            }).find("field 'SLURM_ARRAY_TASK_ID': expected a non-negative integer, got 'one'"),
            std::string::npos);
  // A stepped array: 0-10:2 has 6 tasks over MIN..MAX 0..10.
  EXPECT_NE(error_of([] {
              shard_from_environment(lookup_environment({{"SLURM_ARRAY_TASK_ID", "2"},
                                                         {"SLURM_ARRAY_TASK_MIN", "0"},
                                                         {"SLURM_ARRAY_TASK_MAX", "10"},
                                                         {"SLURM_ARRAY_TASK_COUNT", "6"}}),
                                     std::nullopt);
            }).find("stepped"),
            std::string::npos);
  EXPECT_NE(
      error_of([] {
        shard_from_environment(
            lookup_environment({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}), 4);
      }).find("--shard-count"),
      std::string::npos);
  EXPECT_NE(
      error_of([] {
        shard_from_environment(lookup_environment({{"SLURM_ARRAY_TASK_ID", "1"}}), std::nullopt);
      }).find("count of shards is unknown"),
      std::string::npos);
}

// The command reads this process's environment (set here with setenv, cleared after).
TEST(ShardAuto, SweepRunsTheShardTheEnvironmentNames) {
  namespace fs = std::filesystem;
  const auto dir = testing::temp_dir("shard_auto");
  const fs::path scenario = testing::source_dir() / "tests" / "sweep" / "data" / "small.json";
  testing::write_file(dir / "s.json", "{\"scenarios\": [\"" + scenario.string() +
                                          "\"], \"models\": [\"exclusive\"], \"seeds\": 3}");
  const std::string sweep = (dir / "s.json").string();
  const std::string out = (dir / "out").string();

  for (const char* v : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
                        "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX", "GPUMUX_SHARD_COUNT"}) {
    unsetenv(v);
  }
  const auto none = testing::run_cli({"sweep", sweep, "--out", out, "--shard", "auto"});
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.out, "");
  EXPECT_NE(none.err.find("--shard auto"), std::string::npos) << none.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "runs"));

  setenv("SLURM_ARRAY_TASK_ID", "11", 1);
  setenv("SLURM_ARRAY_TASK_MIN", "10", 1);
  setenv("SLURM_ARRAY_TASK_MAX", "12", 1);
  const auto slurm = testing::run_cli({"sweep", sweep, "--out", out, "--shard", "auto"});
  unsetenv("SLURM_ARRAY_TASK_ID");
  unsetenv("SLURM_ARRAY_TASK_MIN");
  unsetenv("SLURM_ARRAY_TASK_MAX");
  EXPECT_EQ(slurm.code, 0) << slurm.err;
  EXPECT_EQ(slurm.out.rfind("shard 1/3: 1 of 3 runs, 1 run now", 0), 0u) << slurm.out;
  EXPECT_TRUE(fs::exists(dir / "out" / "runs" / "000001"));
  EXPECT_FALSE(fs::exists(dir / "out" / "runs" / "000000"));

  setenv("JOB_COMPLETION_INDEX", "2", 1);
  const auto k8s = testing::run_cli(
      {"sweep", sweep, "--out", out, "--shard", "auto", "--shard-count", "3"});
  unsetenv("JOB_COMPLETION_INDEX");
  EXPECT_EQ(k8s.code, 0) << k8s.err;
  EXPECT_EQ(k8s.out.rfind("shard 2/3: 1 of 3 runs, 1 run now", 0), 0u) << k8s.out;

  const auto count_alone =
      testing::run_cli({"sweep", sweep, "--out", out, "--shard", "0/3", "--shard-count", "3"});
  EXPECT_EQ(count_alone.code, 2);
  EXPECT_NE(count_alone.err.find("only with --shard auto"), std::string::npos);
}

}  // namespace
}  // namespace gpumux
