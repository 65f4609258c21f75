// CPU-only jobs (0 GPUs) on clusters of nodes that declare CPUs: one holds its cores on one node
// from its start to its end, runs at full speed, queues by the queue policy like the others and
// is rejected at arrival where no node could hold it. Also fifo-backfill's reservation when the
// head waits for cores (sim/state/core_reservation.h). Every expected time below is worked out by
// hand in the comment above its check; every run has the invariant checks on.
#include <gtest/gtest.h>

#include <map>

#include "models/exclusive_model.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "sim/scheduling/scheduler.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::with_cpus;

using Span = std::pair<double, double>;

struct CpuOnlyRecord : EngineObserver {
  const Cluster* cluster = nullptr;
  std::map<std::string, Span> at;             // id -> (start, finish)
  std::map<std::string, NodeIndex> cpu_node;  // CPU-only jobs: where their cores were
  std::map<std::string, GpuIndex> first_gpu;  // GPU jobs
  std::map<std::string, std::string> rejected;
  void on_job_started(Time now, const ActiveJob& j) override {
    at[j.spec.id].first = now.seconds();
    if (j.gpus.empty()) {
      cpu_node[j.spec.id] = j.cpu_node;
      // The cores are held from the start: the node's free cores already exclude them.
      EXPECT_LE(cluster->cpu_free(j.cpu_node) + job_cpu_hundredths(j.spec),
                cluster->cpu_capacity(j.cpu_node));
    } else {
      first_gpu[j.spec.id] = j.gpus.front();
    }
  }
  void on_job_finished(Time now, const ActiveJob& j) override {
    at[j.spec.id].second = now.seconds();
  }
  void on_job_rejected(Time, const ActiveJob& j, std::string_view reason) override {
    rejected[j.spec.id] = std::string(reason);
  }
};

// Nodes of `gpus` GPUs with the given cores each (nullopt: not declared).
Cluster cpu_cluster(int gpus, std::vector<std::optional<double>> cores) {
  std::vector<NodeSpec> specs;
  for (std::size_t n = 0; n < cores.size(); ++n) {
    specs.push_back(NodeSpec{"n" + std::to_string(n), 0, gpus, 0, true, cores[n]});
  }
  return Cluster({testing::test_device()}, specs);
}

CpuOnlyRecord run_cpu_only(Cluster& cluster, std::vector<JobSpec> jobs,
                           std::string_view policy = "fifo",
                           const std::string& placement = "first-fit",
                           const SharingModel* model = nullptr) {
  static const ExclusiveModel exclusive;
  Scheduler scheduler(policy, make_placement_policy(placement), 64);
  testing::ListSource source(std::move(jobs));
  testing::CheckedEngine engine(cluster, model ? *model : exclusive, scheduler, source);
  CpuOnlyRecord r;
  r.cluster = &cluster;
  engine.add_observer(&r);
  const EngineStats stats = engine.run();
  EXPECT_EQ(stats.finished + stats.rejected, stats.arrived);
  for (NodeIndex n = 0; cluster.tracks_cpus() && n < cluster.node_count(); ++n) {
    EXPECT_EQ(cluster.cpu_free(n), cluster.cpu_capacity(n)) << "every core given back";
  }
  return r;
}

// Two nodes of 2 GPUs and 8 cores. G (1 GPU, 6 cores) takes node 0 (2 cores left). Then the
// CPU-only jobs: P (3 cores), Q (4 cores), both at 0 for 50 s, and R (1 core) at 10 for 20 s.
// - first-fit: P and Q go to node 1, the first with the cores (8 -> 5 -> 1); R to node 0 (2).
// - best-fit (fewest free that fit): P -> node 1 (node 0's 2 do not fit; 5 left), Q -> node 1
//   (1 left), R -> node 1 (1 free is fewer than node 0's 2; 0 left).
// - spread (most free): P -> node 1 (8 against 2), Q -> node 1 (5 against 2), R -> node 0 (2
//   against 1).
// Each runs at full speed: start to finish is its runtime.
TEST(CpuOnlyJobs, EachPolicyPicksTheNodeItsRuleSays) {
  const std::map<std::string, std::vector<NodeIndex>> want = {
      {"first-fit", {1, 1, 0}}, {"best-fit", {1, 1, 1}}, {"spread", {1, 1, 0}}};
  for (const auto& [placement, nodes] : want) {
    SCOPED_TRACE(placement);
    Cluster cluster = cpu_cluster(2, {8.0, 8.0});
    const CpuOnlyRecord r =
        run_cpu_only(cluster,
                     {with_cpus("G", 0, 1, 6, 100), with_cpus("P", 0, 0, 3, 50),
                      with_cpus("Q", 0, 0, 4, 50), with_cpus("R", 10, 0, 1, 20)},
                     "fifo", placement);
    EXPECT_EQ(r.first_gpu.at("G"), 0u);
    EXPECT_EQ(r.cpu_node.at("P"), nodes[0]);
    EXPECT_EQ(r.cpu_node.at("Q"), nodes[1]);
    EXPECT_EQ(r.cpu_node.at("R"), nodes[2]);
    EXPECT_EQ(r.at.at("P"), Span(0, 50));
    EXPECT_EQ(r.at.at("Q"), Span(0, 50));
    EXPECT_EQ(r.at.at("R"), Span(10, 30));
  }
}

// A CPU-only job's cores bind GPU jobs and the other way round. One node of 2 GPUs, 8 cores.
// C (CPU-only, 6 cores) runs 0-100. G (1 GPU, 4 cores) finds both GPUs empty but 2 cores: it
// waits for C's and starts at 100. D (CPU-only, 2 cores) behind G: fifo holds it behind G
// (starts at 100 beside G: 4 + 2 cores); greedy starts it at once (6 + 2 = 8).
TEST(CpuOnlyJobs, HoldCoresUntilTheyEndAndQueueByThePolicy) {
  for (const auto& placement : {"first-fit", "best-fit", "spread"}) {
    SCOPED_TRACE(placement);
    const std::vector<JobSpec> jobs = {with_cpus("C", 0, 0, 6, 100), with_cpus("G", 0, 1, 4, 10),
                                       with_cpus("D", 0, 0, 2, 10)};
    Cluster fifo_cluster = cpu_cluster(2, {8.0});
    const CpuOnlyRecord fifo = run_cpu_only(fifo_cluster, jobs, "fifo", placement);
    EXPECT_EQ(fifo.at.at("C"), Span(0, 100));
    EXPECT_EQ(fifo.at.at("G"), Span(100, 110));
    EXPECT_EQ(fifo.at.at("D"), Span(100, 110));
    Cluster greedy_cluster = cpu_cluster(2, {8.0});
    const CpuOnlyRecord greedy = run_cpu_only(greedy_cluster, jobs, "greedy", placement);
    EXPECT_EQ(greedy.at.at("G"), Span(100, 110));
    EXPECT_EQ(greedy.at.at("D"), Span(0, 10));
  }
}

// A CPU-only job needs no GPU: it starts while every GPU is busy, under each queue policy.
// One node of 1 GPU, 8 cores. A (1 GPU, 1 core) runs 0-100; C (CPU-only, 2 cores) at 5 starts
// at 5 and ends at 25. Under fifo-backfill with a blocked GPU head H (1 GPU, 1 core, at 1):
// the reservation counts cores (H asks for some): H fits by count when A ends at 100 (shadow
// 100); C (20 s) ends before it, so it backfills at 5 (fifo: C waits behind H until 100).
TEST(CpuOnlyJobs, StartWithEveryGpuBusy) {
  for (const std::string policy : {"fifo", "fifo-backfill", "greedy"}) {
    SCOPED_TRACE(policy);
    Cluster alone = cpu_cluster(1, {8.0});
    const CpuOnlyRecord r =
        run_cpu_only(alone, {with_cpus("A", 0, 1, 1, 100), with_cpus("C", 5, 0, 2, 20)}, policy);
    EXPECT_EQ(r.at.at("C"), Span(5, 25));
    Cluster behind = cpu_cluster(1, {8.0});
    const CpuOnlyRecord h = run_cpu_only(
        behind,
        {with_cpus("A", 0, 1, 1, 100), with_cpus("H", 1, 1, 1, 10), with_cpus("C", 5, 0, 2, 20)},
        policy);
    EXPECT_EQ(h.at.at("H"), Span(100, 110));
    EXPECT_EQ(h.at.at("C"), policy == "fifo" ? Span(100, 120) : Span(5, 25));
  }
}

// Nodes without `cpus` never take a CPU-only job, even beside nodes that declare them. Node 0
// undeclared (unlimited for GPU jobs), node 1 with 4 cores. P (3 cores) goes to node 1 under
// every policy; Q (3 cores, at 0, 10 s) waits for P's (node 1 has 1 left) and starts at 50.
TEST(CpuOnlyJobs, OnlyNodesThatDeclareCpusTakeThem) {
  for (const auto& placement : {"first-fit", "best-fit", "spread"}) {
    SCOPED_TRACE(placement);
    Cluster cluster = cpu_cluster(2, {std::nullopt, 4.0});
    EXPECT_FALSE(cluster.declares_cpus(0));
    EXPECT_TRUE(cluster.declares_cpus(1));
    const CpuOnlyRecord r = run_cpu_only(
        cluster, {with_cpus("P", 0, 0, 3, 50), with_cpus("Q", 0, 0, 3, 10)}, "fifo", placement);
    EXPECT_EQ(r.cpu_node.at("P"), 1u);
    EXPECT_EQ(r.at.at("Q"), Span(50, 60));
  }
}

// Rejected at arrival with the reason: no node declares CPUs; more cores than any node that
// declares them (node 1's 4; node 0 undeclared counts for nothing); no cores at all. A job asking
// for exactly the largest capacity runs.
TEST(CpuOnlyJobs, RejectedAtArrivalWhereNoNodeCouldHoldThem) {
  Cluster plain = cpu_cluster(2, {std::nullopt});
  const CpuOnlyRecord none =
      run_cpu_only(plain, {with_cpus("P", 0, 0, 1, 10), with_cpus("G", 0, 1, 1, 10)});
  EXPECT_NE(none.rejected.at("P").find("no node declares CPU cores"), std::string::npos);
  EXPECT_EQ(none.at.at("G"), Span(0, 10));

  Cluster mixed = cpu_cluster(2, {std::nullopt, 4.0});
  const CpuOnlyRecord r =
      run_cpu_only(mixed, {with_cpus("big", 0, 0, 4.01, 10), with_cpus("zero", 0, 0, 0, 10),
                           with_cpus("tiny", 0, 0, 0.004, 10), with_cpus("fits", 0, 0, 4, 10)});
  EXPECT_EQ(r.rejected.at("big"),
            "CPU-only job (0 GPUs): more CPU cores than any node that declares CPUs has");
  EXPECT_EQ(r.rejected.at("zero"),
            "CPU-only job (0 GPUs) asking for no CPU cores: nothing to hold");
  // 0.004 cores round to 0 hundredths: nothing to hold either.
  EXPECT_EQ(r.rejected.count("tiny"), 1u);
  EXPECT_EQ(r.at.at("fits"), Span(0, 10));
}

// Under a sharing model a CPU-only job never meets the model: it runs at rate 1 beside GPU jobs
// that slow each other. One node of 1 GPU, 8 cores, two jobs per GPU at half speed: A and B (1
// GPU each, 100 s of work) share the GPU, both end at 200; C (CPU-only, 100 s) ends at 100.
TEST(CpuOnlyJobs, RunAtFullSpeedUnderSharingModels) {
  testing::PairModel model;
  Cluster cluster = cpu_cluster(1, {8.0});
  const CpuOnlyRecord r = run_cpu_only(
      cluster,
      {with_cpus("A", 0, 1, 1, 100), with_cpus("B", 0, 1, 1, 100), with_cpus("C", 0, 0, 1, 100)},
      "fifo", "first-fit", &model);
  EXPECT_EQ(r.at.at("A"), Span(0, 200));
  EXPECT_EQ(r.at.at("B"), Span(0, 200));
  EXPECT_EQ(r.at.at("C"), Span(0, 100));
}

// The cluster's index of free cores on nodes that declare them.
TEST(CpuOnlyJobs, ClusterFindsNodesByFreeCores) {
  Cluster cluster = cpu_cluster(1, {4.0, std::nullopt, 8.0, 2.0, 8.0});
  EXPECT_EQ(cluster.most_declared_cpu_capacity(), 800);
  EXPECT_EQ(cluster.most_cpu_free(), 800);
  EXPECT_EQ(cluster.first_node_with_cpu(300), 0u);
  EXPECT_EQ(cluster.first_node_with_cpu(500), 2u);
  EXPECT_EQ(cluster.tightest_node_with_cpu(150), 3u);
  EXPECT_EQ(cluster.tightest_node_with_cpu(300), 0u);
  EXPECT_EQ(cluster.roomiest_node_with_cpu(100), 2u);  // 8 on nodes 2 and 4: the lower
  EXPECT_EQ(cluster.first_node_with_cpu(801), std::nullopt);
  EXPECT_EQ(cluster.tightest_node_with_cpu(801), std::nullopt);
  EXPECT_EQ(cluster.roomiest_node_with_cpu(801), std::nullopt);
  cluster.take_node_cpus(2, 700);
  EXPECT_EQ(cluster.cpu_free(2), 100);
  EXPECT_EQ(cluster.roomiest_node_with_cpu(100), 4u);
  EXPECT_EQ(cluster.first_node_with_cpu(500), 4u);
  EXPECT_EQ(cluster.tightest_node_with_cpu(100), 2u);
  // A GPU job's share counts too: node 4's GPU with 7.5 cores.
  const std::vector<GpuIndex> gpu_of_node4{4};
  cluster.take_cpus(gpu_of_node4, 750);
  EXPECT_EQ(cluster.most_cpu_free(), 400);
  EXPECT_EQ(cluster.roomiest_node_with_cpu(100), 0u);
  EXPECT_THROW(cluster.take_node_cpus(1, 100), std::logic_error);  // declares none
  EXPECT_THROW(cluster.take_node_cpus(3, 201), std::logic_error);  // more than free
  EXPECT_THROW(cluster.give_node_cpus(0, 1), std::logic_error);    // beyond capacity
  cluster.give_cpus(gpu_of_node4, 750);
  cluster.give_node_cpus(2, 700);
  EXPECT_EQ(cluster.most_cpu_free(), 800);
  // Without declared CPUs there is nothing to find.
  Cluster plain = cpu_cluster(1, {std::nullopt});
  EXPECT_EQ(plain.most_cpu_free(), -1);
  EXPECT_EQ(plain.most_declared_cpu_capacity(), -1);
  EXPECT_EQ(plain.first_node_with_cpu(1), std::nullopt);
}

// fifo-backfill when the head waits for cores, not GPUs. One node of 4 GPUs, 8 cores. A (1 GPU,
// 4 cores) runs 0-100. The head H (1 GPU, 5 cores) finds 3 empty GPUs but 4 free cores. Counted
// by GPUs alone it could start now (shadow 0) and B (1 GPU, 4 cores, 500 s) would take the 4
// cores as "spare": H would then wait until B ends at 500. Counting cores: H fits when A's 4
// come back at 100 (shadow 100), with nothing to spare; B, still running then, could take up to
// max(1 GPU, ceil(4 / 5)) = 1 from the head's count (and would in fact leave 8 - 4 = 4 < 5): it
// waits. D (1 GPU, 4 cores, 50 s) ends before the shadow: it backfills at 0. H starts at 100
// (3 cores left, too few for B), ends at 110; B starts at 110.
TEST(CoreReservation, AHeadBlockedByCoresKeepsThemFromBackfill) {
  Cluster cluster = cpu_cluster(4, {8.0});
  const CpuOnlyRecord r = run_cpu_only(cluster,
                                       {with_cpus("A", 0, 1, 4, 100), with_cpus("H", 1, 1, 5, 10),
                                        with_cpus("B", 2, 1, 4, 500), with_cpus("D", 3, 1, 4, 50)},
                                       "fifo-backfill");
  EXPECT_EQ(r.at.at("D"), Span(3, 53));
  EXPECT_EQ(r.at.at("H"), Span(100, 110));
  EXPECT_EQ(r.at.at("B"), Span(110, 610));
}

// The same for a CPU-only head. One node of 2 GPUs, 8 cores. A (1 GPU, 5 cores) runs 0-100.
// H (CPU-only, 6 cores) waits: 3 free. At the shadow (100) one node fits H, none to spare: B (1
// GPU, 3 cores, 500 s) and E (1 GPU, 1 core, 500 s) could each take that node's cores (the
// bound: a job with cores on one node may remove one fitting node), so both wait, though E's 1
// core would in fact leave 7 >= 6. H starts at 100 (2 left), ends at 110. B is then the head,
// waiting for cores (2 < 3) until H's come back at 110, when 2 GPUs can take B's 3 cores: one to
// spare, so E (taking at most 1) starts at 100, and B at 110. On two such nodes (the second
// idle, 8 cores) H starts at once on it.
TEST(CoreReservation, ACpuOnlyHeadKeepsItsCoresFromBackfill) {
  const std::vector<JobSpec> jobs = {with_cpus("A", 0, 1, 5, 100), with_cpus("H", 1, 0, 6, 10),
                                     with_cpus("B", 2, 1, 3, 500), with_cpus("E", 3, 1, 1, 500)};
  Cluster one = cpu_cluster(2, {8.0});
  const CpuOnlyRecord r = run_cpu_only(one, jobs, "fifo-backfill");
  EXPECT_EQ(r.at.at("H"), Span(100, 110));
  EXPECT_EQ(r.at.at("B"), Span(110, 610));
  EXPECT_EQ(r.at.at("E"), Span(100, 600));
  Cluster two = cpu_cluster(2, {8.0, 8.0});
  const CpuOnlyRecord t = run_cpu_only(two, jobs, "fifo-backfill");
  EXPECT_EQ(t.at.at("H"), Span(1, 11));
  EXPECT_EQ(t.cpu_node.at("H"), 1u);
}

// A CPU-only head with a node to spare: two nodes of 1 GPU, 8 cores. A (2 GPUs, 10 cores: 5 on
// each node) runs 0-100. H (CPU-only, 5 cores) waits: 3 free on each. When A ends (the shadow,
// 100) both nodes have their 8: two fit H, one to spare, so B (CPU-only, 2 cores, 500 s), which
// can remove at most one, starts at 2 on node 0 (first-fit: 3 >= 2). H starts at 100 on node 0
// (6 >= 5, the lowest index) and ends at 110.
TEST(CoreReservation, ACpuOnlyHeadLeavesANodeToSpare) {
  Cluster cluster = cpu_cluster(1, {8.0, 8.0});
  const CpuOnlyRecord r = run_cpu_only(
      cluster,
      {with_cpus("A", 0, 2, 10, 100), with_cpus("H", 1, 0, 5, 10), with_cpus("B", 2, 0, 2, 500)},
      "fifo-backfill");
  EXPECT_EQ(r.at.at("B"), Span(2, 502));
  EXPECT_EQ(r.cpu_node.at("B"), 0u);
  EXPECT_EQ(r.at.at("H"), Span(100, 110));
  EXPECT_EQ(r.cpu_node.at("H"), 0u);
}

// A gang head spread over nodes: two nodes of 2 GPUs and 4 cores. A (2 GPUs, 4 cores) runs
// 0-100 on node 0 (all its cores). H (3 GPUs, 6 cores) needs ceil(6 x k / 3) = 2k cores for k
// GPUs on a node: node 1 gives 2 GPUs (4 cores), node 0 none: 2 < 3, it waits; at 100 node 0
// gives 2 more: shadow 100, with 4 usable for 3: one to spare. B (1 GPU, 1 core, 500 s) takes at
// most max(1, ceil(1 x 3 / 6)) = 1: it starts at 2 (node 1, first-fit), leaving node 1 1 GPU
// and 3 cores (1 usable) and node 0 2: 3, none to spare. C (CPU-only, 2 cores, 500 s) could
// take max(0, ceil(2 x 3 / 6)) = 1 (and would: node 1's 1 core left, 0 usable): it waits. H
// starts at 100 on node 0's 2 GPUs and node 1's last (4 + 2 cores), ends at 110. C: node 1 has
// 3 - 2 = 1 core, node 0 0 until H ends at 110: it starts at 110 on node 0 (first-fit).
TEST(CoreReservation, CountsAGangsCoresPerNode) {
  Cluster cluster = cpu_cluster(2, {4.0, 4.0});
  const CpuOnlyRecord r = run_cpu_only(cluster,
                                       {with_cpus("A", 0, 2, 4, 100), with_cpus("H", 1, 3, 6, 10),
                                        with_cpus("B", 2, 1, 1, 500), with_cpus("C", 3, 0, 2, 500)},
                                       "fifo-backfill");
  EXPECT_EQ(r.at.at("B"), Span(2, 502));
  EXPECT_EQ(r.at.at("H"), Span(100, 110));
  EXPECT_EQ(r.at.at("C"), Span(110, 610));
  EXPECT_EQ(r.cpu_node.at("C"), 0u);
}

}  // namespace
}  // namespace gpumux
