// Golden end-to-end run: the quickstart scenario's three output files must match the files
// under tests/golden/quickstart/ byte for byte. After an intended change of behaviour,
// regenerate them with GPUMUX_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

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
    EXPECT_EQ(actual, testing::read_file(golden / name))
        << name << " differs from the golden file; if the change is intended, rerun with "
        << "GPUMUX_UPDATE_GOLDEN=1";
  }
  testing::fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
