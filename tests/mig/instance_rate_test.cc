#include "models/mig/instance_rate.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "models/mig/layout.h"
#include "tests/mig/mig_test_util.h"

namespace gpumux {
namespace {

using mig_test::device;
using mig_test::job;

TEST(MigInstanceRate, DemandAndSupply) {
  const MigDemand dm = mig_demand(job(0, 0.5, 0.4));
  EXPECT_DOUBLE_EQ(dm.compute, 0.4);
  EXPECT_DOUBLE_EQ(dm.bandwidth, 0.2);
  const DeviceProfile& d = device("A100-40GB");
  const MigSupply s = mig_supply(d, *find_mig_profile(d, "3g.20gb"));
  EXPECT_DOUBLE_EQ(s.sm_fraction, 42.0 / 108.0);
  EXPECT_DOUBLE_EQ(s.bandwidth_fraction, 0.5);
}

TEST(MigInstanceRate, RooflineMinimum) {
  // s = 0.5, m = 0.25: compute-bound and bandwidth-bound cases.
  const MigSupply s{0.5, 0.25};
  EXPECT_DOUBLE_EQ(mig_roofline_rate({1.0, 0.1}, s), 0.5);   // s / c
  EXPECT_DOUBLE_EQ(mig_roofline_rate({0.4, 1.0}, s), 0.25);  // m / b
  EXPECT_DOUBLE_EQ(mig_roofline_rate({0.4, 0.2}, s), 1.0);   // fits: as fast as alone
  EXPECT_DOUBLE_EQ(mig_roofline_rate({0.8, 0.5}, s), 0.5);   // min(0.625, 0.5)
}

TEST(MigInstanceRate, ZeroDemandsAreGuarded) {
  EXPECT_DOUBLE_EQ(mig_roofline_rate({0.0, 0.0}, {0.1, 0.1}), 1.0);
  EXPECT_DOUBLE_EQ(mig_roofline_rate({0.0, 0.5}, {0.1, 0.1}), 0.2);
  EXPECT_DOUBLE_EQ(mig_roofline_rate({0.5, 0.0}, {0.1, 0.1}), 0.2);
}

TEST(MigInstanceRate, FullInstanceOfA100LosesTheSmsMigModeHides) {
  // 7g.40gb exposes 98 of 108 SMs: a job using every SM runs at 98/108.
  const DeviceProfile& d = device("A100-40GB");
  EXPECT_NEAR(mig_instance_rate(job(0, 1.0, 1.0), d, *find_mig_profile(d, "7g.40gb")), 98.0 / 108.0,
              1e-12);
  // H100-80GB 7g has all 132 SMs.
  const DeviceProfile& h = device("H100-80GB");
  EXPECT_DOUBLE_EQ(mig_instance_rate(job(0, 1.0, 1.0), h, *find_mig_profile(h, "7g.80gb")), 1.0);
}

// The fitted form by hand, on A100-40GB 3g.20gb (s = 42/108 = 0.389, m = 4/8 = 0.5).
TEST(MigInstanceRate, FittedFormSlowsOnlyTheKernels) {
  const DeviceProfile& d = device("A100-40GB");
  const MigProfile& p3 = *find_mig_profile(d, "3g.20gb");
  const double s = 42.0 / 108.0;
  // A whole-GPU job without mem_bw_util: beta = c = 1, width 1, k = max(1/s, 1/m) = 2.571.
  const double k = 1.0 / s;
  const double busy20 = mig_instance_rate(job(0, 0.2, 1.0), d, p3);
  const double busy100 = mig_instance_rate(job(0, 1.0, 1.0), d, p3);
  EXPECT_NEAR(busy20, 1.0 / (0.2 * k + 0.8), 1e-12);  // 0.761: 1,000 s take 1,314 s
  EXPECT_NEAR(busy100, s, 1e-12);                     // 0.389: 1,000 s take 2,571 s
  EXPECT_GT(busy20, busy100) << "a 20%-busy job slows less than a 100%-busy one";
  // The roofline charges the whole runtime: 0.389 for both.
  const MigSpeedParams roofline{MigSpeedModel::kRoofline};
  EXPECT_NEAR(mig_instance_rate(job(0, 0.2, 1.0), d, p3, roofline), s, 1e-12);
  EXPECT_NEAR(mig_instance_rate(job(0, 1.0, 1.0), d, p3, roofline), s, 1e-12);
}

TEST(MigInstanceRate, FittedFormLeavesAKernelNarrowerThanTheSliceAlone) {
  const DeviceProfile& d = device("A100-40GB");
  const MigProfile& p3 = *find_mig_profile(d, "3g.20gb");
  // sm_share 0.3 < s = 0.389 and bandwidth 0.3 < m = 0.5: not slowed, whatever its duty cycle.
  EXPECT_DOUBLE_EQ(mig_instance_rate(job(0, 0.9, 0.3), d, p3), 1.0);
  EXPECT_DOUBLE_EQ(mig_instance_rate(job(0, 0.2, 0.3), d, p3), 1.0);
  // A job whose trace says sm_share 1 but draws little bandwidth (MISO's resnet bs64:
  // sm_util 0.416, mem_bw_util 0.04): beta = 0.096, width = 0.5437 + 0.4686 x 0.096 = 0.589,
  // k = 0.589 / s = 1.515 in the 3g, rate 1 / (1 + 0.416 x 0.515) = 0.823.
  JobSpec narrow = job(0, 0.4156, 1.0);
  narrow.mem_bw_util = 0.04;
  const double beta = 0.04 / 0.4156;
  const double width = kMigWidthBase + kMigWidthPerBandwidth * beta;
  const double k = width * 108.0 / 42.0;
  EXPECT_NEAR(mig_kernel_slowdown(narrow, mig_supply(d, p3), MigSpeedParams{}), k, 1e-12);
  EXPECT_NEAR(mig_instance_rate(narrow, d, p3), 1.0 / (1.0 + 0.4156 * (k - 1.0)), 1e-12);
  // In the 4g.20gb (56 SMs) its 0.589 x 108 = 63.6 SMs wide kernels are slowed by 63.6 / 56;
  // in the 7g.40gb (98 SMs) not at all.
  EXPECT_DOUBLE_EQ(mig_instance_rate(narrow, d, *find_mig_profile(d, "7g.40gb")), 1.0);
  // Measured bandwidth that binds: kernels drawing 0.9 of the GPU's bandwidth in a 1g.5gb
  // (m = 1/8) run 7.2 times longer; width min(1, 0.5437 + 0.4686 x 0.9) = 0.965 -> 7.44 by SMs.
  JobSpec hungry = job(0, 1.0, 1.0);
  hungry.mem_bw_util = 0.9;
  const MigProfile& p1 = *find_mig_profile(d, "1g.5gb");
  const double w = kMigWidthBase + kMigWidthPerBandwidth * 0.9;
  EXPECT_NEAR(mig_instance_rate(hungry, d, p1), 1.0 / std::max(w * 108.0 / 14.0, 7.2), 1e-12);
}

TEST(MigInstanceRate, RatesInUnitIntervalForEveryBuiltInProfile) {
  for (const char* name : {"A100-40GB", "A100-80GB", "H100-80GB", "H100-94GB", "H200-141GB",
                           "B200-180GB", "A30-24GB"}) {
    const DeviceProfile& d = device(name);
    for (const MigProfile& p : d.mig_profiles) {
      for (double util : {0.05, 0.5, 1.0}) {
        for (double share : {0.05, 0.3, 1.0}) {
          for (double bw : {0.0, 0.01, 0.5, 1.0}) {
            JobSpec j = job(0, util, share);
            j.mem_bw_util = bw;
            for (const MigSpeedModel model : {MigSpeedModel::kFitted, MigSpeedModel::kRoofline}) {
              const double r = mig_instance_rate(j, d, p, MigSpeedParams{model});
              EXPECT_GT(r, 0.0) << name << " " << p.name;
              EXPECT_LE(r, 1.0) << name << " " << p.name;
            }
          }
        }
      }
    }
  }
}

TEST(MigInstanceRate, MonotoneInInstanceSize) {
  const DeviceProfile& d = device("A100-80GB");
  const JobSpec j = job(0, 0.9, 0.8);
  double last = 0.0;
  for (const char* p : {"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}) {
    const double r = mig_instance_rate(j, d, *find_mig_profile(d, p));
    EXPECT_GE(r, last) << p;
    last = r;
  }
}

}  // namespace
}  // namespace gpumux
