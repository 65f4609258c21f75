#include "sim/placement/fgd/policy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/placement/fgd/fragmentation.h"
#include "packing/packing_sim.h"
#include "tests/packing/test_util.h"

namespace gpumux::packing {
namespace {

using testing::node;
using testing::pod;

GpuModelTable t4_table() {
  GpuModelTable t;
  t.intern("T4", "test");
  t.intern("V100M32", "test");
  return t;
}

NodeState state(std::int64_t cpu_left, std::vector<std::int32_t> gpu_left,
                std::int64_t cpu_capacity = 96000) {
  NodeState n;
  n.cpu_capacity = cpu_capacity;
  n.cpu_left = cpu_left;
  n.memory_left_mib = 1 << 20;
  n.num_gpus = static_cast<int>(gpu_left.size());
  n.model = 0;
  for (std::size_t g = 0; g < gpu_left.size(); ++g) n.gpu_left[g] = gpu_left[g];
  return n;
}

PodDemand demand(std::int64_t cpu, int gpus, int milli) {
  return make_demand(pod("p", cpu, gpus, milli), t4_table());
}

TEST(PolicyNames, ParseIsCaseInsensitiveAndListsAll) {
  EXPECT_EQ(parse_policy("FGD"), Policy::kFgd);
  EXPECT_EQ(parse_policy("bestfit"), Policy::kBestFit);
  EXPECT_EQ(parse_policy("GPUPACKING"), Policy::kGpuPacking);
  EXPECT_EQ(parse_policy("tetris"), std::nullopt);
  EXPECT_EQ(policy_name_list(), "Random, DotProd, GpuClustering, GpuPacking, BestFit, FGD");
  for (Policy p : kAllPolicies) EXPECT_EQ(parse_policy(policy_name(p)), p);
}

TEST(Filter, RespectsCpuMemoryModelAndGpuCapacity) {
  const GpuModelTable t = t4_table();
  NodeState n = state(4000, {1000, 300});
  EXPECT_TRUE(fits(n, demand(4000, 1, 500)));
  EXPECT_FALSE(fits(n, demand(4001, 1, 500)));   // CPU
  EXPECT_FALSE(fits(n, demand(1000, 2, 1000)));  // one free GPU only
  EXPECT_TRUE(fits(n, demand(1000, 1, 1000)));
  EXPECT_FALSE(fits(n, make_demand(pod("p", 1, 1, 100, {}, (1 << 20) + 1), t)));  // memory
  EXPECT_FALSE(fits(n, make_demand(pod("p", 1, 1, 100, {"V100M32"}), t)));        // model
  EXPECT_TRUE(fits(n, make_demand(pod("p", 1, 1, 100, {"V100M32", "T4"}), t)));
  EXPECT_FALSE(fits(n, make_demand(pod("p", 1, 1, 100, {"A100"}), t)));  // not in the cluster
  n.gpu_left = {200, 300};
  EXPECT_FALSE(fits(n, demand(1, 1, 400)));
  EXPECT_TRUE(fits(n, demand(1, 0, 0)));  // CPU-only pods ignore GPUs
}

TEST(BestFit, ScoresTheTighterNodeHigherAndPicksTheTightestGpu) {
  const PodDemand share = demand(2000, 1, 300);
  // (1 - (0.5 * 30000/128000 + 0.5 * (1300-300)/8000)) * 100 = 82.03 -> 82
  EXPECT_EQ(best_fit_score(state(32000, {1000, 300}), share), 82);
  EXPECT_GT(best_fit_score(state(32000, {1000, 300}), share),
            best_fit_score(state(32000, {1000, 1000}), share));
  EXPECT_EQ(tightest_gpu(state(1, {1000, 400, 300, 350}), 300), 2);
  EXPECT_EQ(tightest_gpu(state(1, {1000, 400, 350, 350}), 300), 2);  // lowest index among equals
  EXPECT_EQ(tightest_gpu(state(1, {200, 100}), 300), -1);

  // Through the simulator: the pod lands on the fuller node, on its tightest fitting GPU.
  PackingSimulator sim({node("a", 96000, 4), node("b", 96000, 4)}, {pod("w", 1000, 1, 500)},
                       Policy::kBestFit, 1);
  ASSERT_TRUE(sim.schedule(pod("x", 1000, 1, 600)));  // some node, GPU with 400 left
  const int used = sim.nodes()[0].gpu_left_total() < 4000 ? 0 : 1;
  ASSERT_TRUE(sim.schedule(pod("y", 1000, 1, 700)));  // same node, another GPU: 300 left
  const auto placed = sim.schedule(pod("z", 1000, 1, 250));
  ASSERT_TRUE(placed);
  EXPECT_EQ(placed->node, used);
  EXPECT_EQ(sim.nodes()[static_cast<std::size_t>(used)]
                .gpu_left[static_cast<std::size_t>(placed->gpus[0])],
            50);
}

TEST(GpuPacking, PrefersSharedGpusThenUsedNodesThenSmallIdleNodes) {
  const PodDemand share = demand(1000, 1, 300);
  // Case 1: an already-shared GPU: 100 - (500 * 100 / 1000) / 10 = 95.
  EXPECT_EQ(gpu_packing_score(state(8000, {1000, 500}), share), 95);
  // Case 2: a free GPU on a used node: 50 - 1.
  EXPECT_EQ(gpu_packing_score(state(8000, {1000, 0}), share), 49);
  // Case 3: idle nodes, fewer GPUs first: max(33 - free, free).
  EXPECT_EQ(gpu_packing_score(state(8000, {1000, 1000}), share), 31);
  EXPECT_EQ(gpu_packing_score(state(8000, std::vector<std::int32_t>(8, 1000)), share), 25);
  EXPECT_EQ(gpu_packing_score(state(8000, {1000, 500}), demand(1000, 0, 0)), 0);

  PackingSimulator sim({node("idle", 96000, 8), node("shared", 96000, 8)}, {pod("w", 1000, 1, 500)},
                       Policy::kGpuPacking, 3);
  ASSERT_TRUE(sim.schedule(pod("first", 1000, 1, 500)));
  const int shared_node = sim.nodes()[0].gpu_left_total() < 8000 ? 0 : 1;
  const auto p = sim.schedule(pod("second", 1000, 1, 300));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->node, shared_node);
  EXPECT_EQ(sim.nodes()[static_cast<std::size_t>(shared_node)].gpu_left_total(), 8000 - 800);
}

TEST(GpuClustering, BandsByAffinityOfPodsAlreadyThere) {
  const PodDemand share = demand(1000, 1, 300);
  NodeState empty = state(8000, std::vector<std::int32_t>(8, 1000));
  EXPECT_EQ(gpu_clustering_score(empty, share), 25);  // idle: 25 + 0
  NodeState same = empty;
  same.gpu_left[0] = 200;
  same.affinity[0] = 1;
  same.affinity_kinds = 1;
  EXPECT_EQ(gpu_clustering_score(same, share), 75 + 25 * 800 / 8000);
  NodeState mixed = same;
  mixed.gpu_left[1] = 0;
  mixed.affinity[1] = 1;
  mixed.affinity_kinds = 2;
  EXPECT_EQ(gpu_clustering_score(mixed, share), 50 + 25 * 1800 / 8000);
  NodeState other = empty;
  other.gpu_left[0] = 0;
  other.affinity[1] = 1;
  other.affinity_kinds = 1;
  EXPECT_EQ(gpu_clustering_score(other, share), 25 * 1000 / 8000);
  EXPECT_EQ(gpu_clustering_score(other, demand(1000, 0, 0)), 0);
}

TEST(DotProd, InvertedAlignmentOfFreeSpaceAndRequest) {
  // dot = 64000/128000 * 16000/128000 + 4000/8000 * 1000/8000 = 0.0625 + 0.0625
  // score = 100 * (1 - 0.125 / 2) = 93.75 -> 93
  EXPECT_EQ(dot_product_score(state(64000, {1000, 1000, 1000, 1000}), demand(16000, 1, 1000)), 93);
  EXPECT_EQ(dot_product_score(state(100, {1000}), demand(16000, 1, 1000)), 0);  // lacks CPU
}

// Workload: 2 share pods (500 m, 1 core), 1 one-GPU pod (2 cores), 1 CPU-only pod (4 cores).
// All four kinds are typical (95% of 4 pods needs all); frequencies 1/2, 1/4, 1/4.
std::vector<PodSpec> frag_workload() {
  return {pod("a", 1000, 1, 500), pod("b", 1000, 1, 500), pod("c", 2000, 1, 1000),
          pod("d", 4000, 0, 0)};
}

TEST(Fgd, TypicalPodsAreTheMostPopularKinds) {
  const TypicalPods tp = compute_typical_pods(frag_workload(), t4_table());
  ASSERT_EQ(tp.pods.size(), 3u);
  EXPECT_EQ(tp.pods[0].count, 2);
  EXPECT_EQ(tp.pods[0].demand.gpu_milli, 500);
  EXPECT_EQ(tp.pods[1].demand.score_cpu_milli, 4000);  // ties: larger CPU first
  EXPECT_EQ(tp.kept_count, 4);

  // 20 pods: 15 of one kind, 4 of another, 1 rare: 95% is reached with the first two.
  std::vector<PodSpec> w;
  for (int i = 0; i < 15; ++i) w.push_back(pod("s", 1000, 1, 500));
  for (int i = 0; i < 4; ++i) w.push_back(pod("g", 1000, 1, 1000));
  w.push_back(pod("r", 1000, 8, 1000));
  const TypicalPods cut = compute_typical_pods(w, t4_table());
  EXPECT_EQ(cut.pods.size(), 2u);
  EXPECT_EQ(cut.kept_count, 19);
  EXPECT_EQ(cut.total_count, 20);
}

TEST(Fgd, FragmentationOfAHandComputedNode) {
  const GpuModelTable t = t4_table();
  const TypicalPods tp = compute_typical_pods(frag_workload(), t);
  const FragmentationModel frag(tp, static_cast<int>(t.names().size()));
  // Node: GPUs with 1000 and 300 milli left (L = 1300), 8 cores free.
  //   share 500 m fits on GPU 0: the 300 m GPU is fragment      -> 1/2 * 300  = 150
  //   one GPU fits on GPU 0: the 300 m GPU is fragment          -> 1/4 * 300  = 75
  //   CPU-only pods count all idle GPU as fragment              -> 1/4 * 1300 = 325
  const NodeState n = state(8000, {1000, 300});
  EXPECT_DOUBLE_EQ(frag.milli(n), 550.0);
  // Without CPU for the one-GPU pod (needs 2 cores) its quarter becomes all of L.
  EXPECT_DOUBLE_EQ(frag.milli(state(1500, {1000, 300})), 150.0 + 325.0 + 325.0);
  // No idle GPU, no fragmentation.
  EXPECT_DOUBLE_EQ(frag.milli(state(8000, {0, 0})), 0.0);
  // A model the typical GPU pods do not accept: everything idle is fragment.
  const TypicalPods v100_only = compute_typical_pods({pod("v", 1, 1, 500, {"V100M32"})}, t);
  const FragmentationModel frag_v(v100_only, static_cast<int>(t.names().size()));
  EXPECT_DOUBLE_EQ(frag_v.milli(n), 1300.0);

  // FGD score of a 200 m share pod: on GPU 0 -> frag 700 (score 100*sigmoid(-0.15) = 46);
  // on GPU 1 -> frag 350 (score 100*sigmoid(0.2) = 54): it picks GPU 1.
  const FgdChoice c = fgd_score(n, demand(1000, 1, 200), frag, frag.units(n));
  EXPECT_EQ(c.gpu, 1);
  EXPECT_EQ(c.score, static_cast<int>(100.0 / (1.0 + std::exp(-0.2))));
  EXPECT_EQ(c.score, 54);
  // A 500 m pod only fits GPU 0 and leaves fragmentation unchanged (550): score 50.
  const FgdChoice c2 = fgd_score(n, demand(1000, 1, 500), frag, frag.units(n));
  EXPECT_EQ(c2.gpu, 0);
  EXPECT_EQ(c2.score, 50);
}

}  // namespace
}  // namespace gpumux::packing
