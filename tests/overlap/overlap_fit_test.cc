// Fitting recovers known parameters from measurements synthesised by the reference simulators
// (the kernel-level time-slicing reference and the block-level MPS reference), and fitting the
// shared H200 measurements meets the accuracy the models promise.
#include "calibrate/overlap/overlap_fit.h"

#include <gtest/gtest.h>

#include <sstream>

#include "models/calibration_file.h"
#include "bench/validation/mps/lib/mps_block_reference.h"
#include "models/mps/mps_model.h"
#include "bench/validation/timeslice/lib/kernel_reference.h"
#include "models/timeslice/timeslice_physics.h"
#include "tests/overlap/overlap_test_support.h"

namespace gpumux::calibration {
namespace {

constexpr double kLaunchGapUs = 9.0;

double gap_of(double kernel_us, double duty) {
  return std::max(kLaunchGapUs, kernel_us * (1.0 - duty) / duty);
}

// Identical pairs on the grid the probe measures, speeds from the time-slicing reference.
std::string synthesise_timeslice(double switch_cost_us) {
  std::ostringstream csv;
  csv << testing::kOverlapHeader;
  ReferenceConfig ref;
  ref.params.distribution = BurstDistribution::kFixed;
  ref.params.switch_cost_us = switch_cost_us;
  ref.params.time_slice_us = 5000.0;
  ref.min_cycles = 400;
  int set = 0;
  for (double kernel : {20.0, 200.0, 2000.0}) {
    for (double duty : {0.5, 1.0}) {
      const double alone_duty = kernel / (kernel + gap_of(kernel, duty));
      const std::vector<TimeSliceJob> pair(2, TimeSliceJob{alone_duty, kernel});
      const ReferenceResult r = simulate_reference(pair, ref);
      for (int m = 0; m < 2; ++m) {
        csv << "timeslice,ts" << set << "," << m << ",H200-141GB,1," << kernel << "," << duty << ","
            << alone_duty << ",100," << r.rates[static_cast<std::size_t>(m)] << "\n";
      }
      ++set;
    }
  }
  return csv.str();
}

// Pairs that fit side by side (where interference shows) and pairs that take turns, speeds
// from the block-level MPS reference on 132 SMs.
std::string synthesise_mps(double interference) {
  std::ostringstream csv;
  csv << testing::kOverlapHeader;
  MpsReferenceConfig ref;
  ref.params.bursts = MpsBursts::kFixed;
  ref.params.interference = interference;
  ref.min_cycles = 400;
  int set = 0;
  for (double share : {0.25, 0.5, 1.0}) {
    for (double kernel : {200.0, 2000.0}) {
      const double alone_duty = kernel / (kernel + kLaunchGapUs);
      MpsJob job;
      job.sm_util = alone_duty;
      job.sm_share = share;
      job.mean_kernel_us = kernel;
      const MpsReferenceResult r = simulate_mps_blocks({job, job}, ref, 132);
      for (int m = 0; m < 2; ++m) {
        csv << "mps,mps" << set << "," << m << ",H200-141GB," << share << "," << kernel << ",1,"
            << alone_duty << ",100," << r.rates[static_cast<std::size_t>(m)] << "\n";
      }
      ++set;
    }
  }
  return csv.str();
}

TEST(OverlapFit, RecoversTheSwitchCostOfTheTimeSlicingReference) {
  const OverlapData d = read_overlap_csv(testing::write_temp("ts.csv", synthesise_timeslice(90.0)));
  const OverlapFit f = fit_overlap(d, "timeslice", DeviceRegistry::with_builtins());
  EXPECT_NEAR(f.params["switch_cost_us"].get<double>(), 90.0, 3.0);
  EXPECT_NEAR(f.params["interference"].get<double>(), 0.0, 0.01);
  EXPECT_NEAR(f.params["launch_gap_us"].get<double>(), kLaunchGapUs, 0.01);
  // No kernel was preempted: the slice is only bounded below, and the fit says so.
  EXPECT_DOUBLE_EQ(f.params["time_slice_us"].get<double>(), 2000.0);
  ASSERT_FALSE(f.notes.empty());
  EXPECT_NE(f.notes.front().find("lower bound"), std::string::npos);
  EXPECT_LT(f.after.mae, 0.01);
  EXPECT_LT(f.after.mae, f.before.mae);
}

TEST(OverlapFit, RecoversTheInterferenceOfTheBlockLevelMpsReference) {
  const OverlapData d = read_overlap_csv(testing::write_temp("mps.csv", synthesise_mps(0.3)));
  const OverlapFit f = fit_overlap(d, "mps", DeviceRegistry::with_builtins());
  EXPECT_NEAR(f.params["interference"].get<double>(), 0.3, 0.05);
  EXPECT_LT(f.after.mae, 0.02);
  // Without interference the same data is fitted by alpha = 0.
  const OverlapData none = read_overlap_csv(testing::write_temp("mps0.csv", synthesise_mps(0.0)));
  EXPECT_NEAR(fit_overlap(none, "mps", DeviceRegistry::with_builtins())
                  .params["interference"]
                  .get<double>(),
              0.0, 0.02);
}

TEST(OverlapFit, FitOnTheSharedH200FileMeetsTheTarget) {
  const std::string path = testing::h200_measurements();
  if (path.empty()) GTEST_SKIP() << "../shared/data/h200/overlap_train.csv not found";
  const OverlapData d = read_overlap_csv(path);
  const DeviceRegistry devices = DeviceRegistry::with_builtins();
  std::vector<OverlapFit> fits;
  for (const char* mode : {"timeslice", "mps"}) {
    fits.push_back(fit_overlap(d, mode, devices));
    EXPECT_LE(fits.back().after.mae, 0.03) << mode;
    EXPECT_EQ(fits.back().after.rows, std::string(mode) == "mps" ? 48 : 36);
  }
  // The measured switch cost (docs/gpu-facts.md: ~125-137 us per switch).
  EXPECT_NEAR(fits[0].params["switch_cost_us"].get<double>(), 137.0, 5.0);
  // The calibration file round-trips into the models' parameters.
  const std::string file =
      testing::write_temp("cal.json", calibration_json(d, fits, "test").dump(2));
  const Calibration c = read_calibration(file, timeslice_calibration_keys());
  EXPECT_EQ(c.device, "H200-141GB");
  ASSERT_TRUE(c.value(kSwitchCostSpec).has_value());
  EXPECT_NEAR(*c.value(kSwitchCostSpec), fits[0].params["switch_cost_us"].get<double>(), 1e-9);
  ASSERT_TRUE(c.value(kTimeSliceSpec).has_value());
  ASSERT_TRUE(c.value(kTimeSliceLaunchGapSpec).has_value());
  const Calibration m = read_calibration(file, mps_calibration_keys());
  EXPECT_NEAR(m.values.at("interference"), fits[1].params["interference"].get<double>(), 1e-9);
}

}  // namespace
}  // namespace gpumux::calibration
