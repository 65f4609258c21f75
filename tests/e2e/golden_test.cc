// Golden end-to-end run: the quickstart scenario's three output files must match the files
// under tests/golden/quickstart/ byte for byte. After an intended change of behaviour,
// regenerate them with GPUMUX_UPDATE_GOLDEN=1 and review the diff.
//
// One value is not compared: summary.json's provenance.build (the version and `git describe`
// of the binary), which every commit changes; it is masked in both files, and checked on its own.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

// The text with each `"build": {...}` object (no nested object) emptied.
std::string without_build(const std::string& text) {
  static const std::regex build(R"("build": \{[^{}]*\})");
  return std::regex_replace(text, build, R"("build": {})");
}

TEST(Golden, QuickstartOutputsMatch) {
  const auto src = testing::source_dir();
  const auto dir = testing::temp_dir("golden");
  const auto r = testing::run_cli({"run", (src / "scenarios/examples/quickstart.json").string(),
                                   "--out", dir.string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto golden = src / "tests/golden/quickstart";
  const bool update = std::getenv("GPUMUX_UPDATE_GOLDEN") != nullptr;
  for (const char* name : {"summary.json", "jobs.csv", "timeseries.csv"}) {
    const std::string actual = testing::read_file(dir / name);
    ASSERT_FALSE(actual.empty()) << name;
    if (update) testing::write_file(golden / name, actual);
    EXPECT_EQ(without_build(actual), without_build(testing::read_file(golden / name)))
        << name << " differs from the golden file; if the change is intended, rerun with "
        << "GPUMUX_UPDATE_GOLDEN=1";
  }
  const auto summary = nlohmann::json::parse(testing::read_file(dir / "summary.json"));
  const nlohmann::json build = summary["provenance"]["build"];
  ASSERT_TRUE(build.is_object()) << build.dump();
  EXPECT_EQ(build["version"], GPUMUX_VERSION);
  EXPECT_FALSE(build["version"].get<std::string>().empty());
  // The mask empties the build object and nothing after it.
  EXPECT_EQ(without_build(R"({"build": {"git": "a", "version": "1"}, "inputs": [{"x": 1}]})"),
            R"({"build": {}, "inputs": [{"x": 1}]})");
  testing::fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
