// The placement policy decided by a function (sim/placement/callback_placement.h, the Python
// package's policies) and policies added to the placement table at run time.
#include "sim/placement/callback_placement.h"

#include <gtest/gtest.h>

#include <vector>

#include "models/exclusive_model.h"
#include "sim/base/input_error.h"
#include "sim/placement/registry.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::make_cluster;

// 2 nodes x 4 GPUs, one rack each; GPUs 0 and 5 busy.
class CallbackPlacementTest : public ::testing::Test {
 protected:
  CallbackPlacementTest() : cluster_(make_cluster(2, 4, 1)), views_(cluster_, jobs_) {
    cluster_.add_resident(0, 100, MemoryMiB(0));
    cluster_.add_resident(5, 101, MemoryMiB(0));
  }
  bool place(PlacementChooser choose, int gpus, std::vector<GpuIndex>& out) {
    auto policy = make_callback_placement("test-policy", std::move(choose));
    const JobSpec j = testing::job("j", 0, gpus, 1);
    return policy->place(cluster_, model_, views_, j, out);
  }
  Cluster cluster_;
  JobTable jobs_;
  GpuViewBuilder views_;
  ExclusiveModel model_;
};

TEST_F(CallbackPlacementTest, TheFunctionSeesOnlyTheGpusThatAdmitTheJobWithTheirPlace) {
  std::vector<PlacementCandidate> seen;
  std::vector<GpuIndex> out;
  ASSERT_TRUE(place(
      [&](const JobSpec& job, std::span<const PlacementCandidate> c, std::vector<GpuIndex>& pick) {
        seen.assign(c.begin(), c.end());
        pick.push_back(c.back().gpu);
        EXPECT_EQ(job.gpus, 1);
        return true;
      },
      1, out));
  std::vector<GpuIndex> gpus;
  for (const PlacementCandidate& c : seen) gpus.push_back(c.gpu);
  EXPECT_EQ(gpus, (std::vector<GpuIndex>{1, 2, 3, 4, 6, 7}));  // 0 and 5 are taken
  EXPECT_EQ(seen[3].node, 1u);
  EXPECT_EQ(seen[3].rack, 1);
  EXPECT_EQ(seen[3].index_in_node, 0);
  EXPECT_EQ(out, (std::vector<GpuIndex>{7}));
}

TEST_F(CallbackPlacementTest, AFunctionThatDeclinesLeavesTheJobQueued) {
  std::vector<GpuIndex> out;
  EXPECT_FALSE(place(
      [](const JobSpec&, std::span<const PlacementCandidate>, std::vector<GpuIndex>& pick) {
        pick.push_back(1);  // a half-written pick, then no
        return false;
      },
      1, out));
  EXPECT_TRUE(out.empty());
}

TEST_F(CallbackPlacementTest, AGangLargerThanTheAdmittingGpusIsNotAsked) {
  bool asked = false;
  std::vector<GpuIndex> out;
  EXPECT_FALSE(place([&](const JobSpec&, std::span<const PlacementCandidate>,
                         std::vector<GpuIndex>&) { return asked = true; },
                     7, out));
  EXPECT_FALSE(asked);
}

TEST_F(CallbackPlacementTest, WrongPicksAreInputErrorsNamingThePolicyAndJob) {
  const auto picking = [](std::vector<GpuIndex> gpus) {
    return
        [gpus](const JobSpec&, std::span<const PlacementCandidate>, std::vector<GpuIndex>& pick) {
          pick = gpus;
          return true;
        };
  };
  std::vector<GpuIndex> out;
  const auto message = [&](std::vector<GpuIndex> gpus, int gang) {
    try {
      place(picking(gpus), gang, out);
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "placement policy 'test-policy'");
      EXPECT_TRUE(out.empty());
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({0}, 1).find("picked GPU 0 for job 'j', which is not among the GPUs"),
            std::string::npos);
  EXPECT_NE(message({1, 1}, 2).find("picked GPU 1 for job 'j' twice"), std::string::npos);
  EXPECT_NE(message({1}, 2).find("picked 1 GPUs for job 'j', which asks for 2"), std::string::npos);
}

TEST(PlacementRegistration, AnAddedPolicyIsFoundByNameAndNamesAreNotTakenTwice) {
  int built = 0;
  register_placement_policy("test-registered", "a test policy", [&built] {
    ++built;
    return make_callback_placement("test-registered",
                                   [](const JobSpec&, std::span<const PlacementCandidate>,
                                      std::vector<GpuIndex>&) { return false; });
  });
  const PlacementInfo* info = resolve_placement("test-registered", false);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->summary, "a test policy");
  const PlacementInfo* first = &placement_policies().entries().front();
  const auto policy = make_placement(*info, PlacementContext{}, ParameterSet{});
  EXPECT_EQ(policy->name(), "test-registered");
  EXPECT_EQ(built, 1);
  const auto noop = [] { return make_placement_policy("first-fit"); };
  EXPECT_THROW(register_placement_policy("test-registered", "", noop), std::invalid_argument);
  EXPECT_THROW(register_placement_policy("first-fit", "", noop), std::invalid_argument);
  EXPECT_THROW(register_placement_policy("", "", noop), std::invalid_argument);
  // Entries never move: a pointer taken before another registration stays valid.
  register_placement_policy("test-registered-2", "", noop);
  EXPECT_EQ(first, &placement_policies().entries().front());
  EXPECT_EQ(resolve_placement("test-registered", false), info);
}

}  // namespace
}  // namespace gpumux
