// Profile-guided sizing (`sizing`): the smallest MIG profile within a slowdown bound of a job's
// best rate, hand-derived on A100-40GB (108 SMs; 1g 14, 2g 28, 3g 42, 4g 56, 7g 98 SMs), and the
// instance the model then gives the job. The hand derivations use the roofline speed model
// (`speed_model: roofline`), whose rates are simple quotients; one case checks the fitted form.
#include "models/mig/profile_sizing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "models/mig/layout.h"
#include "models/mig/mig_model.h"
#include "tests/mig/mig_test_util.h"

namespace gpumux {
namespace {

using mig_test::device;
using mig_test::job;

const MigSpeedParams kRoofline{MigSpeedModel::kRoofline};

std::string sized(const JobSpec& j, double max_slowdown, const MigSpeedParams& speed = kRoofline) {
  const MigProfile* p = sized_profile(device("A100-40GB"), j, max_slowdown, speed);
  return p == nullptr ? "none" : p->name;
}

TEST(ProfileSizing, PicksTheSmallestProfileWithinTheBound) {
  // sm_share 0.3 (32.4 SMs): rate 14/32.4 = 0.432 in a 1g, 28/32.4 = 0.864 in a 2g, 1 from 3g
  // up; bandwidth (0.15 of the GPU) binds nowhere below it (1g: 0.125 / 0.15 = 0.83).
  const JobSpec j = job(3000, 0.5, 0.3);
  EXPECT_NEAR(best_instance_rate(device("A100-40GB"), j, kRoofline), 1.0, 1e-12);
  EXPECT_EQ(sized(j, 1.0), "3g.20gb");   // full speed
  EXPECT_EQ(sized(j, 1.25), "2g.10gb");  // 0.864 >= 0.8
  EXPECT_EQ(sized(j, 1.15), "3g.20gb");  // 0.864 < 1 / 1.15 = 0.87
  EXPECT_EQ(sized(j, 2.5), "1g.5gb");    // 0.432 x 2.5 >= 1
  // Memory still decides first: 6 GB needs 10 GB of instance.
  EXPECT_EQ(sized(job(6000, 0.5, 0.3), 2.5), "1g.10gb");
  EXPECT_EQ(sized(job(50000, 0.5, 0.3), 2.5), "none");
}

TEST(ProfileSizing, AWholeGpuJobIsMeasuredAgainstTheLargestInstance) {
  // sm_share 1: the best it gets is 7g.40gb at 98/108 = 0.907; 4g.20gb gives 56/108 = 0.519.
  const JobSpec j = job(3000, 0.5, 1.0);
  EXPECT_NEAR(best_instance_rate(device("A100-40GB"), j, kRoofline), 98.0 / 108.0, 1e-12);
  EXPECT_EQ(sized(j, 1.0), "7g.40gb");
  EXPECT_EQ(sized(j, 1.7), "7g.40gb");   // 0.519 x 1.7 = 0.88 < 0.907
  EXPECT_EQ(sized(j, 1.75), "4g.20gb");  // 0.519 x 1.75 = 0.907...: at the bound
  EXPECT_EQ(sized(j, 2.0), "4g.20gb");
}

TEST(ProfileSizing, TheModelGivesTheSizedInstance) {
  const nlohmann::json params = {{"layout", {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}},
                                 {"sizing", {{"max_slowdown", 1.25}}},
                                 {"speed_model", "roofline"}};
  JsonObject o(params, "s.json", "/sharing/params");
  const MigModel m(o);
  const DeviceProfile& d = device("A100-40GB");
  const JobSpec j = job(3000, 0.5, 0.3);
  const std::vector<const JobSpec*> none;
  const GpuView empty{d, none, MemoryMiB(0), {}, 0};
  const int slot = m.choose_slot(empty, j);
  EXPECT_EQ(m.slot_info(d, 0, slot).name, "2g.10gb");  // not the smaller 1g.5gb
  // With the 2g.10gb held, the 3g.20gb is the only instance left within the bound.
  const std::vector<const JobSpec*> one = {&j};
  const std::vector<int> held_2g = {slot};
  const GpuView with_2g{d, one, MemoryMiB(3000), {}, 0, held_2g};
  EXPECT_TRUE(m.admits(with_2g, j));
  EXPECT_EQ(m.slot_info(d, 0, m.choose_slot(with_2g, j)).name, "3g.20gb");
  // With both held, the two 1g.5gb are too slow (0.432 < 0.8): the job waits.
  const std::vector<const JobSpec*> two = {&j, &j};
  const std::vector<int> held_2g_3g = {slot, m.choose_slot(with_2g, j)};
  const GpuView with_both{d, two, MemoryMiB(6000), {}, 0, held_2g_3g};
  EXPECT_FALSE(m.admits(with_both, j));
  // Without sizing the job takes a 1g.5gb first.
  const nlohmann::json plain = {{"layout", {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}};
  JsonObject po(plain, "s.json", "/sharing/params");
  const MigModel by_memory(po);
  EXPECT_EQ(by_memory.slot_info(d, 0, by_memory.choose_slot(empty, j)).name, "1g.5gb");
}

TEST(ProfileSizing, TheBestRateIsThatOfTheLargestInstanceTheLayoutsOffer) {
  // 4g.20gb + 3g.20gb has no 7g.40gb: a job wanting the whole GPU is measured against the 4g
  // (56/108 = 0.519), so it fits there and not in the 3g (42/108 = 0.389; 0.486 at 1.25).
  const nlohmann::json params = {{"layout", {"4g.20gb", "3g.20gb"}},
                                 {"sizing", {{"max_slowdown", 1.25}}},
                                 {"speed_model", "roofline"}};
  JsonObject o(params, "s.json", "/sharing/params");
  const MigModel m(o);
  const DeviceProfile& d = device("A100-40GB");
  const JobSpec wide = job(3000, 0.5, 1.0);
  EXPECT_TRUE(m.fits(d, *find_mig_profile(d, "4g.20gb"), wide));
  EXPECT_FALSE(m.fits(d, *find_mig_profile(d, "3g.20gb"), wide));
  // Measured against every profile of the device (7g.40gb, 0.907), even the 4g would be too slow.
  EXPECT_EQ(sized(wide, 1.25), "7g.40gb");
}

// The fitted form (the default) counts only the kernels. A job busy half the time with
// sm_share 0.3 and no mem_bw_util (so its kernels draw 0.3 of the bandwidth): in a 1g.5gb
// k = max(0.3 / (14/108), 0.3 / (1/8)) = 2.4, rate 1 / (1 + 0.5 x 1.4) = 0.588 (0.432 under the
// roofline); in a 2g.10gb k = 0.3 / (2/8) = 1.2, rate 1 / 1.1 = 0.909 (0.864); 1 from the 3g up.
TEST(ProfileSizing, TheFittedFormSizesOnKernelsOnly) {
  const JobSpec j = job(3000, 0.5, 0.3);
  const MigSpeedParams fitted;
  const DeviceProfile& d = device("A100-40GB");
  EXPECT_NEAR(mig_instance_rate(j, d, *find_mig_profile(d, "1g.5gb"), fitted),
              1.0 / (1.0 + 0.5 * 1.4), 1e-12);
  EXPECT_NEAR(mig_instance_rate(j, d, *find_mig_profile(d, "2g.10gb"), fitted), 1.0 / 1.1, 1e-12);
  EXPECT_EQ(sized(j, 1.0, fitted), "3g.20gb");
  EXPECT_EQ(sized(j, 1.12, fitted), "2g.10gb");  // 0.909 x 1.12 >= 1; the roofline needs 1.16
  EXPECT_EQ(sized(j, 1.12), "3g.20gb");
  EXPECT_EQ(sized(j, 1.75, fitted), "1g.5gb");  // 0.588 x 1.75 >= 1; the roofline needs 2.32
  EXPECT_EQ(sized(j, 1.75), "2g.10gb");
}

TEST(ProfileSizing, BadSizingParametersAreRejected) {
  const auto rejects = [](nlohmann::json params, const std::string& where,
                          const std::string& says) {
    SCOPED_TRACE(params.dump());
    JsonObject o(params, "s.json", "/sharing/params");
    try {
      MigModel m(o);
      ADD_FAILURE() << "accepted " << params.dump();
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr(where));
      EXPECT_THAT(e.what(), ::testing::HasSubstr(says));
    }
  };
  const nlohmann::json layout = {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"};
  rejects({{"layout", layout}, {"sizing", {{"max_slowdown", 0.5}}}},
          "/sharing/params/sizing/max_slowdown", "max_slowdown");
  rejects({{"layout", layout}, {"sizing", {{"slowdown", 2}}}}, "/sharing/params/sizing/slowdown",
          "slowdown");
  rejects({{"layout", layout}, {"sizing", 1.5}}, "/sharing/params/sizing", "sizing");
  rejects({{"layout", layout}, {"sizing", nlohmann::json::object()}, {"compute_aware", true}},
          "/sharing/params/sizing", "compute_aware");
  rejects({{"layout", layout}, {"sizing", nlohmann::json::object()}, {"strategy", "mixed"}},
          "/sharing/params/sizing", "auto");
}

}  // namespace
}  // namespace gpumux
