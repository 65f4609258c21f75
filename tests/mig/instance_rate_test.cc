#include "models/mig/instance_rate.h"

#include <gtest/gtest.h>

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
  EXPECT_DOUBLE_EQ(mig_instance_rate({1.0, 0.1}, s), 0.5);   // s / c
  EXPECT_DOUBLE_EQ(mig_instance_rate({0.4, 1.0}, s), 0.25);  // m / b
  EXPECT_DOUBLE_EQ(mig_instance_rate({0.4, 0.2}, s), 1.0);   // fits: as fast as alone
  EXPECT_DOUBLE_EQ(mig_instance_rate({0.8, 0.5}, s), 0.5);   // min(0.625, 0.5)
}

TEST(MigInstanceRate, ZeroDemandsAreGuarded) {
  EXPECT_DOUBLE_EQ(mig_instance_rate({0.0, 0.0}, {0.1, 0.1}), 1.0);
  EXPECT_DOUBLE_EQ(mig_instance_rate({0.0, 0.5}, {0.1, 0.1}), 0.2);
  EXPECT_DOUBLE_EQ(mig_instance_rate({0.5, 0.0}, {0.1, 0.1}), 0.2);
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

TEST(MigInstanceRate, RatesInUnitIntervalForEveryBuiltInProfile) {
  for (const char* name : {"A100-40GB", "A100-80GB", "H100-80GB", "H100-94GB", "H200-141GB",
                           "B200-180GB", "A30-24GB"}) {
    const DeviceProfile& d = device(name);
    for (const MigProfile& p : d.mig_profiles) {
      for (double util : {0.05, 0.5, 1.0}) {
        for (double share : {0.05, 0.3, 1.0}) {
          const double r = mig_instance_rate(job(0, util, share), d, p);
          EXPECT_GT(r, 0.0) << name << " " << p.name;
          EXPECT_LE(r, 1.0) << name << " " << p.name;
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
