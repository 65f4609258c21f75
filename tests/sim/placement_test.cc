#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string_view>

#include "models/exclusive_model.h"
#include "sim/placement/registry.h"
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

TEST_F(PlacementTest, SpreadTakesTheLeastLoadedNode) {
  // Loads: node 0 one job, node 1 none, node 2 two jobs.
  EXPECT_EQ(place("spread", 2), (std::vector<GpuIndex>{4, 5}));
  EXPECT_EQ(place("spread", 4), (std::vector<GpuIndex>{4, 5, 6, 7}));
  // Only node 0 (3 empty) and node 1 hold 3; node 1 is the less loaded.
  EXPECT_EQ(place("spread", 3), (std::vector<GpuIndex>{4, 5, 6}));
  // Gangs larger than a node still stay in one rack, the fullest nodes first.
  EXPECT_EQ(place("spread", 6), (std::vector<GpuIndex>{4, 5, 6, 7, 1, 2}));
}

// 2 nodes x 2 GPUs under a model that admits two jobs per GPU.
class SpreadSharedTest : public ::testing::Test {
 protected:
  SpreadSharedTest() : cluster_(make_cluster(2, 2)), views_(cluster_, jobs_) {}
  void add(GpuIndex gpu, std::int64_t mib) {
    const JobSlot slot = jobs_.acquire();
    jobs_[slot].spec = testing::job("r" + std::to_string(slot), 0, 1, 1);
    jobs_[slot].spec.memory = MemoryMiB(mib);
    cluster_.add_resident(gpu, slot, MemoryMiB(mib));
  }
  std::vector<GpuIndex> place(const char* policy, int gpus = 1) {
    std::vector<GpuIndex> out;
    JobSpec j = testing::job("j", 0, gpus, 1);
    j.memory = MemoryMiB(100);
    if (!make_placement_policy(policy)->place(cluster_, model_, views_, j, out)) return {};
    return out;
  }
  Cluster cluster_;
  JobTable jobs_;
  GpuViewBuilder views_;
  testing::PairModel model_;
};

TEST_F(SpreadSharedTest, SpreadAvoidsSharingWhileAnEmptyGpuExists) {
  add(0, 1000);
  add(2, 1000);
  add(3, 500);
  // best-fit and first-fit pack onto an occupied GPU; spread takes node 0's empty GPU.
  EXPECT_EQ(place("best-fit"), (std::vector<GpuIndex>{0}));
  EXPECT_EQ(place("first-fit"), (std::vector<GpuIndex>{0}));
  EXPECT_EQ(place("spread"), (std::vector<GpuIndex>{1}));
}

TEST_F(SpreadSharedTest, SpreadBreaksTiesByFreeMemoryThenIndex) {
  // Every GPU carries one job: the node with the most free memory, then its emptier GPU.
  add(0, 4000);
  add(1, 1000);
  add(2, 2000);
  add(3, 2500);
  EXPECT_EQ(place("spread"), (std::vector<GpuIndex>{2}));
  EXPECT_EQ(place("spread", 2), (std::vector<GpuIndex>{2, 3}));
}

TEST_F(SpreadSharedTest, SpreadTiesGoToTheLowestIndexAndRepeat) {
  add(1, 1000);
  add(3, 1000);
  // Equal loads everywhere: node 0, GPU 0, and the same answer every time.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(place("spread"), (std::vector<GpuIndex>{0}));
  EXPECT_EQ(make_placement_policy("spread")->name(), "spread");
}

// The rule of first-fit and best-fit under empty-GPU admission, written out plainly: one node
// (first-fit: the lowest with n empty; best-fit: the fewest empty that still hold n, lowest on
// ties), else one rack (the lowest / the tightest that holds n), else the whole cluster; across
// nodes, the nodes with the most empty GPUs first, lower index on ties, each giving its lowest
// empty GPUs. The placement answers the same from its indexes.
std::vector<GpuIndex> reference_placement(const Cluster& c, bool best, int n) {
  const auto empties = [&](NodeIndex node) {
    std::vector<GpuIndex> gpus;
    const GpuIndex first = c.topology().first_gpu(node);
    for (int i = 0; i < c.node(node).gpus; ++i) {
      if (c.gpu(first + i).free()) gpus.push_back(first + i);
    }
    return gpus;
  };
  const auto pick = [&](const std::vector<long>& counts) -> long {
    long chosen = -1;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] < n) continue;
      if (chosen < 0 || (best && counts[i] < counts[chosen])) chosen = static_cast<long>(i);
      if (!best) break;
    }
    return chosen;
  };
  std::vector<long> per_node(c.node_count()), per_rack(c.topology().rack_count());
  for (NodeIndex node = 0; node < c.node_count(); ++node) {
    per_node[node] = static_cast<long>(empties(node).size());
    per_rack[c.topology().rack_of_node(node)] += per_node[node];
  }
  if (const long node = pick(per_node); node >= 0) {
    auto gpus = empties(static_cast<NodeIndex>(node));
    gpus.resize(n);
    return gpus;
  }
  std::vector<NodeIndex> nodes;
  if (const long rack = pick(per_rack); rack >= 0) {
    nodes = c.topology().nodes_in_rack(static_cast<int>(rack));
  } else {
    for (NodeIndex node = 0; node < c.node_count(); ++node) nodes.push_back(node);
  }
  std::stable_sort(nodes.begin(), nodes.end(),
                   [&](NodeIndex a, NodeIndex b) { return per_node[a] > per_node[b]; });
  std::vector<GpuIndex> out;
  for (NodeIndex node : nodes) {
    for (GpuIndex g : empties(node)) {
      if (static_cast<int>(out.size()) == n) return out;
      out.push_back(g);
    }
  }
  return static_cast<int>(out.size()) == n ? out : std::vector<GpuIndex>{};
}

TEST(Placement, IndexedFitsMatchThePlainRuleOnRandomClusters) {
  std::mt19937_64 rng(7);
  int across_nodes = 0;
  for (int round = 0; round < 300; ++round) {
    // 1-40 nodes of 1-8 GPUs in racks of 1-6 nodes (racks dense from 0, node order by rack).
    const int nodes = std::uniform_int_distribution<int>(1, 40)(rng);
    const int per_rack = std::uniform_int_distribution<int>(1, 6)(rng);
    std::vector<NodeSpec> specs;
    for (int n = 0; n < nodes; ++n) {
      const int gpus = std::uniform_int_distribution<int>(1, 8)(rng);
      specs.push_back(NodeSpec{"n" + std::to_string(n), 0, gpus, n / per_rack, true});
    }
    Cluster cluster({testing::test_device()}, specs);
    const double busy = std::uniform_real_distribution<double>(0.0, 0.95)(rng);
    JobSlot resident = 0;
    for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) {
      if (std::uniform_real_distribution<double>(0.0, 1.0)(rng) < busy) {
        cluster.add_resident(g, resident++, MemoryMiB(0));
      }
    }
    JobTable jobs;
    GpuViewBuilder views(cluster, jobs);
    ExclusiveModel model;
    for (const char* policy : {"first-fit", "best-fit"}) {
      auto placement = make_placement_policy(policy);
      const bool best = std::string_view(policy) == "best-fit";
      for (int n : {1, 2, 3, 5, 8, 9, 13, 24}) {
        std::vector<GpuIndex> out;
        const JobSpec j = testing::job("j", 0, n, 1);
        const bool placed = placement->place(cluster, model, views, j, out);
        const std::vector<GpuIndex> expected = reference_placement(cluster, best, n);
        ASSERT_EQ(placed, !expected.empty()) << policy << " gang " << n << " round " << round;
        if (placed) {
          ASSERT_EQ(out, expected) << policy << " gang " << n << " round " << round;
          std::set<NodeIndex> spanned;
          for (GpuIndex g : out) spanned.insert(cluster.gpu(g).node);
          across_nodes += spanned.size() > 1;
        }
      }
    }
  }
  // The rounds reach the paths across nodes, not only single nodes.
  EXPECT_GT(across_nodes, 500);
}

TEST(Placement, UnknownPolicyNameThrows) {
  EXPECT_THROW(make_placement_policy("worst-fit"), std::invalid_argument);
}

}  // namespace
}  // namespace gpumux
