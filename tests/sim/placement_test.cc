#include "sim/placement.h"

#include <gtest/gtest.h>

#include "models/exclusive_model.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::make_cluster;

// 3 nodes x 4 GPUs; nodes 0 and 1 in rack 0, node 2 in rack 1. GPU 0 and GPUs 8, 9 busy.
class PlacementTest : public ::testing::Test {
 protected:
  PlacementTest() : cluster_(make_cluster(3, 4, 2)), views_(cluster_, jobs_) {
    cluster_.add_resident(0, 100, MemoryMiB(0));
    cluster_.add_resident(8, 101, MemoryMiB(0));
    cluster_.add_resident(9, 102, MemoryMiB(0));
  }
  std::vector<GpuIndex> place(const char* policy, int gpus) {
    auto p = make_placement_policy(policy);
    std::vector<GpuIndex> out;
    JobSpec j = testing::job("j", 0, gpus, 1);
    if (!p->place(cluster_, model_, views_, j, out)) return {};
    return out;
  }
  Cluster cluster_;
  JobTable jobs_;
  GpuViewBuilder views_;
  ExclusiveModel model_;
};

TEST_F(PlacementTest, FirstFitTakesTheLowestNodeThatFits) {
  EXPECT_EQ(place("first-fit", 2), (std::vector<GpuIndex>{1, 2}));
  EXPECT_EQ(place("first-fit", 4), (std::vector<GpuIndex>{4, 5, 6, 7}));
}

TEST_F(PlacementTest, BestFitTakesTheTightestNode) {
  EXPECT_EQ(place("best-fit", 2), (std::vector<GpuIndex>{10, 11}));
  EXPECT_EQ(place("best-fit", 3), (std::vector<GpuIndex>{1, 2, 3}));
}

TEST_F(PlacementTest, LargeGangStaysInOneRackWhenItCan) {
  // Rack 0 has 7 empty GPUs: the fullest node first (node 1), then node 0.
  EXPECT_EQ(place("first-fit", 6), (std::vector<GpuIndex>{4, 5, 6, 7, 1, 2}));
}

TEST_F(PlacementTest, GangSpansRacksOnlyWhenNoRackSuffices) {
  EXPECT_EQ(place("first-fit", 9), (std::vector<GpuIndex>{4, 5, 6, 7, 1, 2, 3, 10, 11}));
  EXPECT_TRUE(place("first-fit", 10).empty());
  EXPECT_TRUE(place("best-fit", 10).empty());
}

TEST(Placement, SharedModelPrefersFullerGpusUnderBestFit) {
  Cluster c = make_cluster(1, 4);
  JobTable jobs;
  GpuViewBuilder views(c, jobs);
  testing::PairModel model;
  const JobSlot resident = jobs.acquire();
  jobs[resident].spec = testing::job("r", 0, 1, 1);
  jobs[resident].spec.memory = MemoryMiB(1000);
  c.add_resident(2, resident, MemoryMiB(1000));
  JobSpec j = testing::job("j", 0, 1, 1);
  std::vector<GpuIndex> out;
  ASSERT_TRUE(make_placement_policy("best-fit")->place(c, model, views, j, out));
  EXPECT_EQ(out, (std::vector<GpuIndex>{2}));
  ASSERT_TRUE(make_placement_policy("first-fit")->place(c, model, views, j, out));
  EXPECT_EQ(out, (std::vector<GpuIndex>{0}));
}

TEST(Placement, MixedDevicesOnlyUseGpusThatAdmitTheJob) {
  DeviceProfile small = testing::test_device(8192);
  small.name = "Small";
  DeviceProfile big = testing::test_device(81920);
  big.name = "Big";
  Cluster c({small, big}, {NodeSpec{"s", 0, 4, 0, true}, NodeSpec{"b", 1, 4, 0, true}});
  JobTable jobs;
  GpuViewBuilder views(c, jobs);
  ExclusiveModel model;
  JobSpec j = testing::job("j", 0, 2, 1);
  j.memory = MemoryMiB(20000);
  std::vector<GpuIndex> out;
  ASSERT_TRUE(make_placement_policy("first-fit")->place(c, model, views, j, out));
  EXPECT_EQ(out, (std::vector<GpuIndex>{4, 5}));
  j.gpus = 5;
  EXPECT_FALSE(make_placement_policy("first-fit")->place(c, model, views, j, out));
}

TEST(Placement, UnknownPolicyNameThrows) {
  EXPECT_THROW(make_placement_policy("worst-fit"), std::invalid_argument);
}

}  // namespace
}  // namespace gpumux
