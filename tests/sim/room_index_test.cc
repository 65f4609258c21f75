// The room index (sim/state/room_class_index.h, Cluster::room_counts)
// and the placement path it serves, against plain counting.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string_view>
#include <vector>

#include "sim/placement/registry.h"
#include "sim/state/room_class_index.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

// Admits a job wherever the GPU's room (set by the test with Cluster::set_room) reaches its
// memory. `decides`: whether it says so (room_decides_admission), which sends placement through
// the room index; otherwise placement counts usable GPUs, asking admits per GPU as before.
class RoomOnlyModel : public SharingModel, public RoomBound {
 public:
  explicit RoomOnlyModel(bool decides) : decides_(decides) {}
  std::string_view name() const override { return "room-only"; }
  bool admits(const GpuView&, const JobSpec&) const override { return true; }
  void compute_rates(const GpuView&, std::span<double> rates, GpuLoad&) const override {
    std::fill(rates.begin(), rates.end(), 1.0);
  }
  const RoomBound* room_bound() const override { return this; }
  double gpu_room(const GpuView&) const override { return kUnboundedRoom; }  // the test sets it
  double job_need(const JobSpec& job) const override {
    return static_cast<double>(job.memory.mib());
  }
  bool room_decides_admission() const override { return decides_; }
  std::vector<ModelParameter> parameters() const override { return {}; }

 private:
  bool decides_;
};

// The plain answer: per node, how many GPUs have open room >= need; the lowest node with >= n,
// or the fewest >= n (lowest on ties).
std::optional<NodeIndex> plain_node(const Cluster& c, double need, int n, bool tightest) {
  std::optional<NodeIndex> pick;
  int pick_count = 0;
  for (NodeIndex node = 0; node < c.node_count(); ++node) {
    int k = 0;
    const GpuIndex first = c.topology().first_gpu(node);
    for (int i = 0; i < c.node(node).gpus; ++i) k += c.open_room(first + i) >= need;
    if (k < n) continue;
    if (!tightest) return node;
    if (!pick || k < pick_count) {
      pick = node;
      pick_count = k;
    }
  }
  return pick;
}

std::vector<NodeSpec> random_room_nodes(std::mt19937_64& rng, int max_nodes) {
  const int nodes = std::uniform_int_distribution<int>(1, max_nodes)(rng);
  const int per_rack = std::uniform_int_distribution<int>(1, 6)(rng);
  std::vector<NodeSpec> specs;
  for (int n = 0; n < nodes; ++n) {
    const int gpus = std::uniform_int_distribution<int>(1, 8)(rng);
    specs.push_back(NodeSpec{"n" + std::to_string(n), 0, gpus, n / per_rack, true});
  }
  return specs;
}

// Rooms from a few values (so that needs equal, exceed and fall short of them) or unavailable.
void change_a_gpu(Cluster& c, std::mt19937_64& rng) {
  const GpuIndex g = static_cast<GpuIndex>(rng() % c.gpu_count());
  if (rng() % 8 == 0) {
    c.set_available(g, !c.gpu(g).available);
  } else {
    c.set_room(g, static_cast<double>(rng() % 6) * 1000.0 - 1000.0);  // -1000 .. 4000
  }
}

TEST(RoomIndex, AnswersLikeACountAcrossRoomChangesAndMoreNeedsThanItKeeps) {
  std::mt19937_64 rng(23);
  int found = 0, missing = 0;
  for (int round = 0; round < 60; ++round) {
    Cluster cluster({testing::test_device()}, random_room_nodes(rng, 150));
    for (int step = 0; step < 400; ++step) {
      change_a_gpu(cluster, rng);
      // More distinct needs than the index keeps (kMaxClasses), so classes are replaced.
      const double need = static_cast<double>(rng() % 12) * 500.0 - 500.0;
      const int n = std::uniform_int_distribution<int>(1, 8)(rng);
      for (bool tightest : {false, true}) {
        const RoomCounts room = cluster.room_counts(need);
        const auto got = tightest ? room.tightest_node(n) : room.first_node(n);
        const auto want = plain_node(cluster, need, n, tightest);
        ASSERT_EQ(got, want) << "round " << round << " step " << step << " need " << need
                             << " n " << n << (tightest ? " tightest" : " first");
        (got ? found : missing) += 1;
      }
      // The counts behind gangs that no node holds: per node, per rack, and the nodes with
      // exactly k in increasing order.
      const RoomCounts counts = cluster.room_counts(need);
      std::vector<int> rack(cluster.topology().rack_count(), 0);
      std::vector<std::vector<NodeIndex>> with(9);
      for (NodeIndex node = 0; node < cluster.node_count(); ++node) {
        int k = 0;
        const GpuIndex first = cluster.topology().first_gpu(node);
        for (int i = 0; i < cluster.node(node).gpus; ++i) k += cluster.open_room(first + i) >= need;
        ASSERT_EQ(counts.on_node(node), k) << "round " << round << " step " << step;
        rack[static_cast<std::size_t>(cluster.topology().rack_of_node(node))] += k;
        with[static_cast<std::size_t>(k)].push_back(node);
      }
      for (std::size_t r = 0; r < rack.size(); ++r) {
        ASSERT_EQ(counts.in_rack(static_cast<int>(r)), rack[r]) << "round " << round << " rack " << r;
      }
      for (int k = 1; k <= 8; ++k) {
        std::vector<NodeIndex> visited;
        counts.visit_nodes_with(k, [&](NodeIndex node) {
          visited.push_back(node);
          return true;
        });
        ASSERT_EQ(visited, with[static_cast<std::size_t>(k)]) << "round " << round << " k " << k;
      }
    }
  }
  // Both answers occur: nodes found and none found.
  EXPECT_GT(found, 10000);
  EXPECT_GT(missing, 1000);
}

TEST(RoomIndex, UnavailableGpusAndNanRoomsNeverCount) {
  RoomClassIndex index;
  index.reset({2, 2}, {0, 2}, {0, 0});
  std::vector<double> open = {5.0, std::numeric_limits<double>::quiet_NaN(), 5.0, 1.0};
  const std::size_t c = index.class_for(5.0, open);
  EXPECT_EQ(index.count(c, 0), 1);
  EXPECT_EQ(index.count(c, 1), 1);
  EXPECT_FALSE(index.first_node(c, 2).has_value());
  index.on_room_changed(1, 1.0, 6.0);  // GPU 3 grows
  EXPECT_EQ(index.tightest_node(index.class_for(5.0, open), 2), NodeIndex{1});
  index.on_room_changed(0, 5.0, std::numeric_limits<double>::quiet_NaN());  // GPU 0 goes away
  EXPECT_EQ(index.count(c, 0), 0);
  EXPECT_EQ(index.first_node(c, 1), NodeIndex{1});
  EXPECT_EQ(index.rack_count(c, 0), 2);  // GPUs 2 and 3, both nodes in rack 0
}

// A pooled node holds thousands of GPUs (scenarios/peers/pai2020_sim.json: 6,500): counts past
// any small integer type, and a cluster that has such a node builds.
TEST(RoomIndex, CountsNodesOfThousandsOfGpus) {
  RoomClassIndex index;
  index.reset({6500, 3}, {0, 6500}, {0, 1});
  std::vector<double> open(6503, 2.0);
  open[6501] = 1.0;
  const std::size_t c = index.class_for(2.0, open);
  EXPECT_EQ(index.count(c, 0), 6500);
  EXPECT_EQ(index.rack_count(c, 1), 2);
  EXPECT_EQ(index.first_node(c, 300), NodeIndex{0});
  EXPECT_EQ(index.tightest_node(c, 2), NodeIndex{1});
  index.on_room_changed(0, 2.0, 1.0);
  EXPECT_EQ(index.count(c, 0), 6499);
  Cluster pool({testing::test_device()}, {NodeSpec{"pool", 0, 6500, 0, true}});
  EXPECT_EQ(pool.room_counts(0.0).first_node(6500), NodeIndex{0});
}

// Placement through the index chooses the GPUs that counting chooses, for every gang size
// (gangs that no node holds go across nodes in both), first-fit and best-fit.
TEST(RoomIndex, PlacementThroughTheIndexChoosesAsCountingDoes) {
  std::mt19937_64 rng(41);
  const RoomOnlyModel indexed(true), counted(false);
  int placed_count = 0, single_node = 0;
  for (int round = 0; round < 200; ++round) {
    Cluster cluster({testing::test_device()}, random_room_nodes(rng, 40));
    JobTable jobs;
    GpuViewBuilder views(cluster, jobs);
    for (const char* policy : {"first-fit", "best-fit"}) {
      auto a = make_placement_policy(policy);
      auto b = make_placement_policy(policy);
      for (int step = 0; step < 40; ++step) {
        for (int k = 0; k < 5; ++k) change_a_gpu(cluster, rng);
        JobSpec j = testing::job("j", 0, std::uniform_int_distribution<int>(1, 12)(rng), 1);
        j.memory = MemoryMiB(static_cast<std::int64_t>(rng() % 5) * 1000);
        std::vector<GpuIndex> got, want;
        const bool placed = a->place(cluster, indexed, views, j, got);
        ASSERT_EQ(placed, b->place(cluster, counted, views, j, want))
            << policy << " round " << round << " step " << step;
        ASSERT_EQ(got, want) << policy << " round " << round << " step " << step;
        if (placed) {
          ++placed_count;
          single_node += cluster.gpu(got.front()).node == cluster.gpu(got.back()).node;
        }
      }
    }
  }
  EXPECT_GT(placed_count, 4000);
  EXPECT_GT(single_node, 2000);
  EXPECT_GT(placed_count - single_node, 500);  // the fallback across nodes is exercised too
}

}  // namespace
}  // namespace gpumux
