#include "calibrate/overlap/overlap_data.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "calibrate/overlap/overlap_predict.h"
#include "models/device_registry.h"
#include "sim/base/input_error.h"
#include "tests/overlap/overlap_test_support.h"

namespace gpumux::calibration {
namespace {

using testing::kOverlapHeader;
using testing::write_temp;

std::string error_of(const std::string& text) {
  try {
    read_overlap_csv(write_temp("bad.csv", text));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(OverlapData, ReadsTheSharedH200File) {
  const std::string path = testing::h200_measurements();
  if (path.empty()) GTEST_SKIP() << "../shared/data/h200/overlap_train.csv not found";
  const OverlapData d = read_overlap_csv(path);
  EXPECT_EQ(d.rows.size(), 84u);
  EXPECT_EQ(d.sets.size(), 42u);
  EXPECT_EQ(overlap_modes(d), (std::vector<std::string>{"timeslice", "mps"}));
  for (const OverlapSet& s : d.sets) EXPECT_EQ(s.rows.size(), 2u) << s.name;
}

TEST(OverlapData, GroupsRowsIntoSetsInFileOrder) {
  const OverlapData d = read_overlap_csv(write_temp(
      "ok.csv", std::string(kOverlapHeader) + "mps,b,0,H200-141GB,0.5,20,1,0.68,100,0.9\n"
                                              "# a comment\n"
                                              "timeslice,a,0,H200-141GB,1,200,0.5,0.49,100,0.6\n"
                                              "mps,b,1,H200-141GB,0.25,2000,1,0.99,100,0.95\n"));
  ASSERT_EQ(d.sets.size(), 2u);
  EXPECT_EQ(d.sets[0].name, "b");
  EXPECT_EQ(d.sets[0].rows, (std::vector<int>{0, 2}));
  EXPECT_EQ(d.rows[1].line, 4);
  EXPECT_DOUBLE_EQ(d.rows[2].kernel_us, 2000.0);
}

TEST(OverlapData, BadInputNamesTheLineAndField) {
  const std::string h = kOverlapHeader;
  EXPECT_NE(error_of("mode,set\nmps,a\n").find("field 'member': missing column"),
            std::string::npos);
  EXPECT_NE(error_of(h + "mig,a,0,H200-141GB,1,20,1,0.7,100,0.5\n").find("bad.csv:2: field 'mode'"),
            std::string::npos);
  EXPECT_NE(error_of(h + "mps,a,0,H200-141GB,1.5,20,1,0.7,100,0.5\n").find("field 'sm_share'"),
            std::string::npos);
  EXPECT_NE(error_of(h + "mps,a,0,H200-141GB,1,20,1,0.7,100,0.5\n"
                         "mps,a,0,H200-141GB,1,20,1,0.7,100,0.5\n")
                .find("bad.csv:3: field 'member'"),
            std::string::npos);
  EXPECT_NE(error_of(h + "mps,a,0,H200-141GB,1,20,1,0.7,100,0.5\n"
                         "timeslice,a,1,H200-141GB,1,20,1,0.7,100,0.5\n")
                .find("mixes modes"),
            std::string::npos);
  EXPECT_NE(error_of(h + "mps,a,0,H200-141GB,1,20,1,0.7,50,0.5\n"
                         "mps,a,1,H200-141GB,1,20,1,0.7,100,0.5\n")
                .find("active-thread caps"),
            std::string::npos);
  EXPECT_NE(error_of(h + "mps,a,0,H200-141GB,1,20\n").find("expected 10 fields"),
            std::string::npos);
  EXPECT_NE(error_of(h).find("no measurement rows"), std::string::npos);
  EXPECT_NE(error_of("").find("empty file"), std::string::npos);
}

TEST(OverlapData, UnknownDeviceIsReportedAtItsLine) {
  const OverlapData d = read_overlap_csv(write_temp(
      "dev.csv", std::string(kOverlapHeader) + "mps,a,0,NoSuchGPU,1,20,1,0.7,100,0.5\n"));
  try {
    predict_overlap(d, "mps", nlohmann::json::object(), DeviceRegistry::with_builtins());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dev.csv:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("NoSuchGPU"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpumux::calibration
