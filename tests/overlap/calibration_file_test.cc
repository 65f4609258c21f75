// The calibration file as a map model -> {key: value}, read through each model's declared keys
// and their parameter specs (models/calibration_file.h).
#include "models/calibration_file.h"

#include <gtest/gtest.h>

#include "models/mig/mig_params.h"
#include "models/mps/mps_model.h"
#include "models/timeslice/timeslice_physics.h"
#include "sim/base/input_error.h"
#include "tests/overlap/overlap_test_support.h"

namespace gpumux {
namespace {

std::string calibration(const std::string& name, const std::string& models) {
  return testing::write_temp(
      name,
      R"({"format": "gpumux-calibration", "device": "H200-141GB", "models": )" + models + "}");
}

TEST(CalibrationFile, EachModelReadsTheKeysItDeclares) {
  const std::string file = calibration("declared.json", R"({
      "timeslice": {"params": {"switch_cost_us": 130, "time_slice_us": 2000, "kernel_us": 9}},
      "mps": {"params": {"interference": 0.06, "launch_gap_us": 4, "switch_cost_us": 1}},
      "mig": {"params": {"width_base": 0.5, "width_per_bandwidth": 0.4}}})");
  const Calibration t = read_calibration(file, timeslice_calibration_keys());
  EXPECT_EQ(t.device, "H200-141GB");
  EXPECT_EQ(t.value(kSwitchCostSpec), 130.0);
  EXPECT_EQ(t.value(kTimeSliceSpec), 2000.0);
  // A fit without an interference measured none; one without a launch gap leaves the default.
  EXPECT_EQ(t.value(kTimeSliceInterferenceSpec), 0.0);
  EXPECT_FALSE(t.value(kTimeSliceLaunchGapSpec).has_value());
  EXPECT_EQ(t.values.count("kernel_us"), 0u);  // the pairs fit's mapping: not a model parameter
  const Calibration m = read_calibration(file, mps_calibration_keys());
  EXPECT_EQ(m.values, (std::map<std::string, double, std::less<>>{{"interference", 0.06},
                                                                  {"launch_gap_us", 4.0}}));
  const Calibration g = read_calibration(file, mig_calibration_keys());
  EXPECT_EQ(g.values.at("width_base"), 0.5);
  EXPECT_EQ(g.values.at("width_per_bandwidth"), 0.4);
}

TEST(CalibrationFile, KeysAreCheckedByTheModelsSpecs) {
  // Out of the spec's range.
  EXPECT_THROW(read_calibration(
                   calibration("range.json", R"({"timeslice": {"params": {"time_slice_us": 0}}})"),
                   timeslice_calibration_keys()),
               InputError);
  // A key the model neither takes nor ignores.
  EXPECT_THROW(read_calibration(calibration("unknown.json",
                                            R"({"mig": {"params": {"width_base": 0.5,
                                                "width_per_bandwidth": 0.4, "interference": 1}}})"),
                                mig_calibration_keys()),
               InputError);
  // A required key missing.
  EXPECT_THROW(
      read_calibration(calibration("required.json", R"({"mig": {"params": {"width_base": 0.5}}})"),
                       mig_calibration_keys()),
      InputError);
  // No fit for the model.
  try {
    read_calibration(calibration("absent.json", R"({"mps": {"params": {}}})"),
                     timeslice_calibration_keys());
    FAIL() << "read a file without a timeslice fit";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no fit for model 'timeslice'"), std::string::npos)
        << e.what();
  }
}

TEST(CalibrationFile, FixedKeysAndTheEarlierLayoutAreNotReadAsMeasured) {
  const Calibration fixed = read_calibration(
      calibration("fixed.json",
                  R"({"timeslice": {"params": {"time_slice_us": 2000, "interference": 0.2},
                                    "fixed": ["time_slice_us"]}})"),
      timeslice_calibration_keys());
  EXPECT_FALSE(fixed.value(kTimeSliceSpec).has_value());
  EXPECT_EQ(fixed.value(kTimeSliceInterferenceSpec), 0.2);
  const std::string earlier =
      testing::write_temp("earlier.json", R"({"model": "timeslice", "params": {"interference": 0.1,
                          "switch_cost_us": 40, "time_slice_us": 2000, "util_scale": 1}})");
  const Calibration flat = read_calibration(earlier, timeslice_calibration_keys());
  EXPECT_EQ(flat.value(kTimeSliceInterferenceSpec), 0.1);
  EXPECT_EQ(flat.value(kSwitchCostSpec), 40.0);
  EXPECT_FALSE(flat.value(kTimeSliceSpec).has_value());
  EXPECT_TRUE(flat.device.empty());
  EXPECT_THROW(read_calibration(earlier, mps_calibration_keys()), InputError);
}

}  // namespace
}  // namespace gpumux
