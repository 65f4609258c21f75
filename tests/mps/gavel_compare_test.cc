#include "models/mps/gavel_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/base/input_error.h"

namespace gpumux {
namespace {

std::string gavel_json() {
  const char* root = std::getenv("GPUMUX_SOURCE_DIR");
  // The shared data lives beside the repository: ../shared/data (see its README.md).
  const std::string path = std::string(root ? root : ".") +
                           "/../shared/data/colocation/gavel_simulation_throughputs.json";
  return std::filesystem::exists(path) ? path : "";
}

std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("gpumux_mps_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(MpsGavel, ReadsASmallFile) {
  const std::string path = temp_file("gavel_small.json", R"json({
    "k80": {"('A', 1)": {"null": 1.0}, "('B', 1)": {"null": 2.0}},
    "p100": {"('A', 1)": {"null": 3.0}, "('B', 1)": {"null": 4.0}},
    "v100": {"('A', 1)": {"null": 4.0, "('B', 1)": [2.0, 1.0], "('A', 1)": [0.0, 0.0]},
             "('B', 1)": {"null": 2.0, "('A', 1)": [1.0, 2.0]},
             "('A', 2)": {"null": 7.0, "('A', 2)": [0.0, 0.0]}}})json");
  const GavelData data = load_gavel(path);
  ASSERT_EQ(data.types.size(), 2u);
  EXPECT_EQ(data.types[0].name, "A");
  ASSERT_EQ(data.v100_pairs.size(), 2u);
  EXPECT_EQ(data.skipped_unrunnable, 1);
  EXPECT_DOUBLE_EQ(data.v100_pairs[0].measured, 0.5);
  EXPECT_DOUBLE_EQ(data.v100_pairs[1].measured, 0.5);
  // A speeds up 4x from K80 to V100, B not at all: S = 4, A is GPU-bound, B gets the floor.
  const std::vector<MpsJob> jobs = map_gavel_types(data, GavelMapping{});
  EXPECT_DOUBLE_EQ(jobs[0].sm_util, 1.0);
  EXPECT_DOUBLE_EQ(jobs[1].sm_util, 0.05);
  const GavelComparison c = compare_gavel(data, GavelMapping{});
  EXPECT_DOUBLE_EQ(c.gpu_speedup, 4.0);
  EXPECT_EQ(c.speeds, 2);
}

TEST(MpsGavel, RejectsAMalformedFile) {
  const std::string path = temp_file("gavel_bad.json", R"json({"k80": {}, "p100": {}})json");
  EXPECT_THROW(load_gavel(path), InputError);
}

// The honest comparison recorded in bench/validation/mps/RESULTS.md: the mapping uses solo throughputs only.
TEST(MpsGavel, V100PairsMaeIsRecorded) {
  const std::string path = gavel_json();
  if (path.empty()) GTEST_SKIP() << "shared Gavel data not found";
  const GavelData data = load_gavel(path);
  EXPECT_EQ(data.types.size(), 26u);
  EXPECT_EQ(data.v100_pairs.size(), 636u);
  EXPECT_EQ(data.skipped_unrunnable, 40);
  const GavelComparison c = compare_gavel(data, GavelMapping{});
  RecordProperty("mae", std::to_string(c.mae));
  EXPECT_NEAR(c.mae, 0.2990, 0.002);
  EXPECT_NEAR(c.bias, 0.2681, 0.002);
  EXPECT_LT(c.mae, c.mae_none);
}

}  // namespace
}  // namespace gpumux
