#include "models/mig/profile_selection.h"

#include <gtest/gtest.h>

#include "tests/mig/mig_test_util.h"

namespace gpumux {
namespace {

using mig_test::device;
using mig_test::job;

std::string chosen(const std::string& dev, const JobSpec& j, bool compute_aware = false) {
  const ProfileSelection s = select_profile(device(dev), j, compute_aware);
  return s.ok() ? s.profile->name : std::string(profile_selection_status_name(s.status));
}

TEST(MigProfileSelection, SmallestByMemory) {
  EXPECT_EQ(chosen("A100-40GB", job(1000)), "1g.5gb");
  EXPECT_EQ(chosen("A100-40GB", job(4864)), "1g.5gb");    // exactly the usable memory
  EXPECT_EQ(chosen("A100-40GB", job(4865)), "1g.10gb");   // 1g.10gb before 2g.10gb (compute)
  EXPECT_EQ(chosen("A100-40GB", job(12000)), "3g.20gb");  // 3g before 4g at equal memory
  EXPECT_EQ(chosen("A100-40GB", job(30000)), "7g.40gb");
  EXPECT_EQ(chosen("A100-80GB", job(9728)), "1g.10gb");  // plain before its +me twin
  EXPECT_EQ(chosen("H100-80GB", job(20000)), "1g.20gb");
  EXPECT_EQ(chosen("A30-24GB", job(7000)), "2g.12gb");
  EXPECT_EQ(chosen("B200-180GB", job(100000)), "7g.180gb");
}

TEST(MigProfileSelection, NothingFits) {
  EXPECT_EQ(chosen("A100-40GB", job(40193)), "no-profile-fits");
  EXPECT_EQ(chosen("V100M32", job(1000)), "no-mig");
  const ProfileSelection s = select_profile(device("A100-40GB"), job(50000), false);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.profile, nullptr);
}

TEST(MigProfileSelection, RequestedProfile) {
  EXPECT_EQ(chosen("A100-80GB", job(1000, 1, 1, "3g.40gb")), "3g.40gb");
  const ProfileSelection s = select_profile(device("A100-80GB"), job(1000, 1, 1, "3g.40gb"), true);
  EXPECT_EQ(s.status, ProfileSelectionStatus::kRequested);
  EXPECT_EQ(chosen("A100-40GB", job(1000, 1, 1, "3g.40gb")), "unknown-requested-profile");
  const ProfileSelection small =
      select_profile(device("A100-80GB"), job(30000, 1, 1, "1g.10gb"), false);
  EXPECT_EQ(small.status, ProfileSelectionStatus::kRequestedTooSmall);
  ASSERT_NE(small.profile, nullptr);
  EXPECT_EQ(small.profile->name, "1g.10gb");
  EXPECT_FALSE(small.ok());
}

TEST(MigProfileSelection, ComputeAware) {
  // 40% of A100's 108 SMs = 43.2 -> 44 SMs: 4g (56) is the smallest with enough.
  EXPECT_EQ(chosen("A100-40GB", job(1000, 1.0, 0.4), true), "4g.20gb");
  EXPECT_EQ(chosen("A100-40GB", job(1000, 1.0, 0.4), false), "1g.5gb");
  // 25% = 27 SMs: 2g.10gb (28).
  EXPECT_EQ(chosen("A100-40GB", job(1000, 1.0, 0.25), true), "2g.10gb");
  // The whole GPU (108 SMs) is capped at the most any profile has (98): 7g.
  EXPECT_EQ(required_sms(device("A100-40GB"), job(1000, 1.0, 1.0)), 98);
  EXPECT_EQ(chosen("A100-40GB", job(1000, 1.0, 1.0), true), "7g.40gb");
  // H100-80GB 1g.20gb has 26 SMs: 19% of 132 = 25.08 -> 26.
  EXPECT_EQ(chosen("H100-80GB", job(1000, 1.0, 0.19), true), "1g.20gb");
}

TEST(MigProfileSelection, InstanceFits) {
  const DeviceProfile& d = device("A100-40GB");
  const MigProfile& g1 = *find_mig_profile(d, "1g.5gb");
  EXPECT_TRUE(instance_fits(d, g1, job(4864, 1, 1.0), false));
  EXPECT_FALSE(instance_fits(d, g1, job(4865, 1, 0.1), false));
  EXPECT_FALSE(instance_fits(d, g1, job(1000, 1, 0.5), true));
  EXPECT_TRUE(instance_fits(d, g1, job(1000, 1, 0.1), true));
}

}  // namespace
}  // namespace gpumux
