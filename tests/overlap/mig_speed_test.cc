// `gpumux calibrate mig-speeds fit|check`: MIG job speeds (MISO's layout) against the mig model's
// job-speed model: reading, hand-computed predictions, a fit that recovers known parameters,
// the fit/check round trip and its last line, the shared MISO half, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "calibrate/overlap/calibrate_command.h"
#include "calibrate/overlap/mig_speed_data.h"
#include "calibrate/overlap/mig_speed_fit.h"
#include "models/device_registry.h"
#include "tests/overlap/overlap_test_support.h"

namespace gpumux::calibration {
namespace {

const DeviceProfile& a100() {
  static const DeviceRegistry registry = DeviceRegistry::with_builtins();
  return registry.get("A100-40GB", "test");
}

std::string last_output_line(const std::string& text) {
  const std::size_t end = text.find_last_not_of('\n');
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - start);
}

std::string miso(const std::string& name) {
  const char* root = std::getenv("GPUMUX_SOURCE_DIR");
  const std::filesystem::path path =
      std::filesystem::path(root ? root : ".") / ".." / "shared" / "data" / "miso-a100-mig" / name;
  return std::filesystem::exists(path) ? path.string() : "";
}

constexpr const char* kWorkloadsHeader =
    "workload,batch,memory_mib,sm_util_pct,mem_bw_util_pct,iter_s_7g,profiles_measured\n";
constexpr const char* kSpeedsHeader =
    "workload,batch,profile,median_iter_s,batches_measured,speed_vs_7g\n";

TEST(MigSpeed, PredictionsByHand) {
  const std::string w = testing::write_temp(
      "w_hand.csv", std::string(kWorkloadsHeader) + "a,1,1000,50,1,0.1,x\nb,8,1000,100,0,0.1,x\n");
  const std::string s = testing::write_temp(
      "s_hand.csv", std::string(kSpeedsHeader) +
                        "a,1,1g.5gb,0.2,10,0.5\na,1,7g.40gb,0.1,10,1\nb,8,3g.20gb,0.3,10,0.4\n");
  const MigSpeedData data = read_mig_speeds(s, w);
  ASSERT_EQ(data.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(data.workloads[0].sm_util, 0.5);
  const std::vector<double> p = predict_mig_speeds(data, a100(), MigSpeedParams{});
  // a: busy half the time, its kernels drawing 0.01 / 0.5 = 0.02 of the bandwidth: width
  // 0.5437 + 0.4686 x 0.02 = 0.553 of 108 SMs = 59.7. In a 1g (14 SMs) its kernels run 59.7 / 14
  // times longer, half its time; in the 7g (98 SMs) not at all.
  const double k = (kMigWidthBase + kMigWidthPerBandwidth * 0.02) * 108.0 / 14.0;
  EXPECT_NEAR(p[0], 1.0 / (1.0 + 0.5 * (k - 1.0)), 1e-12);
  EXPECT_DOUBLE_EQ(p[1], 1.0);
  // b: mem_bw_util_pct 0 reads as not measured (as in a trace): kernels as wide as the GPU, busy
  // all the time: 42 SMs against the 7g's 98.
  EXPECT_NEAR(p[2], 42.0 / 98.0, 1e-12);
  const MigSpeedError e = mig_speed_error(data, a100(), p);
  EXPECT_EQ(e.rows, 2) << "the 7g.40gb row is the reference, not counted";
  EXPECT_NEAR(e.mae, (std::abs(p[0] - 0.5) + std::abs(p[2] - 0.4)) / 2.0, 1e-12);
}

// Speeds made by the model itself with known parameters: the fit recovers them, and the
// calibration file it writes makes the check exact.
TEST(MigSpeed, FitRecoversKnownParametersAndTheCheckRoundTrips) {
  std::string workloads = kWorkloadsHeader;
  const char* families[] = {"f0", "f1", "f2"};
  int n = 0;
  for (const char* f : families) {
    for (int b = 1; b <= 3; ++b, ++n) {
      const double u = 30.0 + 20.0 * b, bw = 5.0 + 9.0 * n;
      workloads += std::string(f) + "," + std::to_string(b) + ",1000," + std::to_string(u) + "," +
                   std::to_string(bw) + ",0.1,x\n";
    }
  }
  const std::string w = testing::write_temp("w_known.csv", workloads);
  std::string rows = kSpeedsHeader;
  for (const char* f : families) {
    for (int b = 1; b <= 3; ++b) {
      for (const char* p : {"1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"}) {
        rows += std::string(f) + "," + std::to_string(b) + "," + p + ",0.1,10,1\n";
      }
    }
  }
  const std::string s0 = testing::write_temp("s_placeholder.csv", rows);
  MigSpeedParams truth;
  truth.width_base = 0.35;
  truth.width_per_bandwidth = 0.9;
  const std::vector<double> speeds = predict_mig_speeds(read_mig_speeds(s0, w), a100(), truth);
  std::string measured = kSpeedsHeader;
  std::size_t i = 0;
  for (const char* f : families) {
    for (int b = 1; b <= 3; ++b) {
      for (const char* p : {"1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"}) {
        char speed[32];
        std::snprintf(speed, sizeof speed, "%.12f", speeds[i++]);
        measured += std::string(f) + "," + std::to_string(b) + "," + p + ",0.1,10," + speed + "\n";
      }
    }
  }
  const std::string s = testing::write_temp("s_known.csv", measured);
  const MigSpeedFit fit = fit_mig_speeds(read_mig_speeds(s, w), a100());
  EXPECT_NEAR(fit.params.width_base, 0.35, 1e-4);
  EXPECT_NEAR(fit.params.width_per_bandwidth, 0.9, 1e-3);
  EXPECT_LT(fit.after.mae, 1e-6);
  EXPECT_GT(fit.defaults.mae, 0.01);
  ASSERT_EQ(fit.folds.size(), 3u);
  for (const MigSpeedFold& f : fit.folds) EXPECT_LT(f.error.mae, 1e-4) << f.family;

  const std::string cal = testing::write_temp("mig_cal.json", "");
  std::ostringstream out, err;
  const CalibrateFitCommand fit_cmd = testing::fit_command(s, cal, "mig", w);
  ASSERT_EQ(run_calibrate_fit(fit_cmd, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("cross-validation by family"), std::string::npos) << out.str();
  CalibrateCheckCommand check = testing::check_command(s, cal, "mig", "table", w);
  std::ostringstream check_out, check_err;
  ASSERT_EQ(run_calibrate_check(check, check_out, check_err), 0) << check_err.str();
  EXPECT_EQ(check_out.str().rfind("calibration: " + cal, 0), 0u);
  const std::string last = last_output_line(check_out.str());
  ASSERT_EQ(last.rfind("MAE ", 0), 0u) << last;
  EXPECT_EQ(last, "MAE 0.0000");
  // Without --calibration: the built-in defaults, which these speeds were not made with.
  check.calibration.clear();
  std::ostringstream d_out, d_err;
  ASSERT_EQ(run_calibrate_check(check, d_out, d_err), 0) << d_err.str();
  EXPECT_NE(d_out.str().find("calibration: none"), std::string::npos);
  EXPECT_GT(std::stod(last_output_line(d_out.str()).substr(4)), 0.01);
  check.format = "csv";
  std::ostringstream c_out, c_err;
  ASSERT_EQ(run_calibrate_check(check, c_out, c_err), 0) << c_err.str();
  EXPECT_NE(c_out.str().find("line,workload,batch,profile"), std::string::npos);
  EXPECT_EQ(last_output_line(c_out.str()).rfind("MAE ", 0), 0u);
}

// The shared MISO half (resnet, bert, gnn, deepspeech2): the built-in defaults are its fit, and
// they beat the roofline (0.23) and the plain duty-cycle form (0.14).
TEST(MigSpeed, SharedMisoHalf) {
  const std::string s = miso("mig_speeds_train.csv"), w = miso("workloads.csv");
  if (s.empty() || w.empty()) GTEST_SKIP() << "../shared/data/miso-a100-mig not found";
  const MigSpeedFit fit = fit_mig_speeds(read_mig_speeds(s, w), a100());
  EXPECT_EQ(fit.after.rows, 56);
  EXPECT_NEAR(fit.params.width_base, kMigWidthBase, 5e-4);
  EXPECT_NEAR(fit.params.width_per_bandwidth, kMigWidthPerBandwidth, 5e-4);
  EXPECT_LT(fit.after.mae, 0.08);
  EXPECT_NEAR(fit.defaults.mae, fit.after.mae, 1e-4);
  EXPECT_GT(fit.roofline.mae, 0.22);
  EXPECT_GT(fit.duty_cycle.mae, 0.14);
  EXPECT_EQ(fit.folds.size(), 4u);
  EXPECT_LT(fit.cv_mae, 0.14);
  const CalibrateCheckCommand check = testing::check_command(s, "", "mig", "table", w);
  std::ostringstream out, err;
  ASSERT_EQ(run_calibrate_check(check, out, err), 0) << err.str();
  EXPECT_EQ(last_output_line(out.str()), "MAE 0.0757");
}

TEST(MigSpeed, BadInputExitsTwoNamesTheLineAndFieldAndWritesNothing) {
  const std::string w =
      testing::write_temp("w_bad.csv", std::string(kWorkloadsHeader) + "a,1,1000,50,10,0.1,x\n");
  const auto fails = [&](const std::string& speeds, const std::string& workloads,
                         const std::string& says) {
    SCOPED_TRACE(says);
    const std::string cal = testing::write_temp("bad_cal.json", "");
    std::filesystem::remove(cal);
    const CalibrateFitCommand fit = testing::fit_command(speeds, cal, "mig", workloads);
    std::ostringstream out, err;
    EXPECT_EQ(run_calibrate_fit(fit, out, err), 2);
    EXPECT_NE(err.str().find(says), std::string::npos) << err.str();
    EXPECT_EQ(out.str(), "");
    EXPECT_FALSE(std::filesystem::exists(cal));
    const CalibrateCheckCommand check =
        testing::check_command(speeds, "", "mig", "table", workloads);
    std::ostringstream check_out, check_err;
    EXPECT_EQ(run_calibrate_check(check, check_out, check_err), 2);
    EXPECT_NE(check_err.str().find(says), std::string::npos) << check_err.str();
    EXPECT_EQ(check_out.str(), "");
  };
  const auto speeds = [](const std::string& name, const std::string& row) {
    return testing::write_temp(name, std::string(kSpeedsHeader) + "a,1,2g.10gb,0.2,10,0.5\n" + row);
  };
  fails("no/such/speeds.csv", w, "no/such/speeds.csv");
  fails(speeds("s_ok.csv", ""), "no/such/workloads.csv", "no/such/workloads.csv");
  const std::string unknown = speeds("s_unknown.csv", "vgg,16,1g.5gb,0.2,10,0.5\n");
  fails(unknown, w, unknown + ":3: field 'workload': 'vgg' batch 16 is not in");
  const std::string bad = speeds("s_bad.csv", "a,1,1g.5gb,0.2,10,fast\n");
  fails(bad, w, bad + ":3: field 'speed_vs_7g'");
  const std::string short_row = speeds("s_short.csv", "a,1,1g.5gb\n");
  fails(short_row, w, short_row + ":3");
  const std::string profile = speeds("s_profile.csv", "a,1,9g.90gb,0.2,10,0.5\n");
  fails(profile, w, profile + ":3: field 'profile': '9g.90gb'");
  const std::string no_column = testing::write_temp("s_nocol.csv", "workload,batch,profile\n");
  fails(no_column, w, "field 'speed_vs_7g': missing column");
  const std::string w_bad = testing::write_temp(
      "w_badutil.csv", std::string(kWorkloadsHeader) + "a,1,1000,150,10,0.1,x\n");
  fails(speeds("s_ok2.csv", ""), w_bad, w_bad + ":2: field 'sm_util_pct'");
  const std::string w_twice = testing::write_temp(
      "w_twice.csv", std::string(kWorkloadsHeader) + "a,1,1000,50,10,0.1,x\na,1,1,50,10,0.1,x\n");
  fails(speeds("s_ok3.csv", ""), w_twice, w_twice + ":3: field 'workload'");
  fails(speeds("s_ok4.csv", ""), "", "--mode mig needs --workloads");
  // A calibration file without a mig fit.
  const std::string cal = testing::write_temp(
      "ts_only.json",
      R"({"format": "gpumux-calibration", "models": {"timeslice": {"params": {}}}})");
  const CalibrateCheckCommand check =
      testing::check_command(speeds("s_ok5.csv", ""), cal, "mig", "table", w);
  std::ostringstream out, err;
  EXPECT_EQ(run_calibrate_check(check, out, err), 2);
  EXPECT_NE(err.str().find("no fit for model 'mig'"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace gpumux::calibration
