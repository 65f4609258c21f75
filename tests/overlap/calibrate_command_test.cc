#include "calibrate/overlap/calibrate_command.h"

#include <gtest/gtest.h>

#include <sstream>

#include "tests/overlap/overlap_test_support.h"

namespace gpumux::calibration {
namespace {

std::string last_line(const std::string& text) {
  const std::size_t end = text.find_last_not_of('\n');
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - start);
}

TEST(CalibrateCommand, CheckEndsWithTheMaeLineAndNamesTheCalibration) {
  const std::string path = testing::h200_measurements();
  if (path.empty()) GTEST_SKIP() << "../shared/data/h200/overlap_train.csv not found";
  const std::string cal = testing::write_temp("check_cal.json", "");
  std::ostringstream out, err;
  ASSERT_EQ(run_calibrate_fit(testing::fit_command(path, cal, ""), out, err), 0) << err.str();
  EXPECT_NE(out.str().find("lower bound"), std::string::npos);
  for (const char* mode : {"timeslice", "mps"}) {
    std::ostringstream check_out, check_err;
    ASSERT_EQ(
        run_calibrate_check(testing::check_command(path, cal, mode, "table"), check_out, check_err),
        0);
    const std::string text = check_out.str();
    EXPECT_EQ(text.rfind("calibration: " + cal, 0), 0u) << text.substr(0, 80);
    const std::string last = last_line(text);
    ASSERT_EQ(last.rfind("MAE ", 0), 0u) << last;
    EXPECT_LE(std::stod(last.substr(4)), 0.03) << mode;
  }
  std::ostringstream csv, csv_err;
  ASSERT_EQ(run_calibrate_check(testing::check_command(path, "", "", "csv"), csv, csv_err), 0);
  EXPECT_NE(csv.str().find("# calibration: none"), std::string::npos);
  EXPECT_NE(csv.str().find("line,mode,set,member"), std::string::npos);
}

TEST(CalibrateCommand, BadInputExitsTwoAndWritesNothing) {
  std::ostringstream out, err;
  const std::string missing = testing::write_temp("never.json", "");
  std::filesystem::remove(missing);
  EXPECT_EQ(run_calibrate_fit(testing::fit_command("no/such/file.csv", missing, ""), out, err), 2);
  EXPECT_NE(err.str().find("no/such/file.csv"), std::string::npos) << err.str();
  EXPECT_FALSE(std::filesystem::exists(missing));
  const std::string only_mps =
      testing::write_temp("only_mps.csv", std::string(testing::kOverlapHeader) +
                                              "mps,a,0,H200-141GB,1,20,1,0.7,100,0.5\n");
  std::ostringstream err2;
  EXPECT_EQ(
      run_calibrate_check(testing::check_command(only_mps, "", "timeslice", "table"), out, err2),
      2);
  EXPECT_NE(err2.str().find("no rows of mode 'timeslice'"), std::string::npos) << err2.str();
  std::ostringstream err3;
  EXPECT_EQ(
      run_calibrate_check(testing::check_command(only_mps, "no/cal.json", "", "table"), out, err3),
      2);
  EXPECT_NE(err3.str().find("no/cal.json"), std::string::npos) << err3.str();
}

// A calibration measured on one device checked against measurements of another: a warning
// naming both devices and the measurements' first row of the other device.
TEST(CalibrateCommand, CheckWarnsOfACalibrationFromAnotherDevice) {
  const std::string rows =
      testing::write_temp("h200_rows.csv", std::string(testing::kOverlapHeader) +
                                               "mps,a,0,H200-141GB,1,20,1,0.7,100,0.5\n"
                                               "mps,a,1,H200-141GB,1,20,1,0.7,100,0.5\n");
  const std::string cal =
      testing::write_temp("t4_cal.json", R"({"format": "gpumux-calibration", "device": "T4",
        "models": {"mps": {"params": {"interference": 0.061}, "fixed": []}}})");
  std::ostringstream out, err;
  ASSERT_EQ(run_calibrate_check(testing::check_command(rows, cal, "mps", "table"), out, err), 0)
      << err.str();
  EXPECT_NE(err.str().find("warning: --calibration: calibration " + cal +
                           " was measured on T4, applied here to H200-141GB"),
            std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find(rows + ":2"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace gpumux::calibration
