// CPU capacity on clusters of nodes (NodeSpec::cpus): a job holds its cores on its nodes while it
// runs, placement counts only nodes with the cores free, and a cluster whose nodes declare no
// CPUs never runs out of them. Every expected time below is worked out by hand in the comment
// above its check.
#include <gtest/gtest.h>

#include <map>

#include "models/exclusive_model.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "sim/scheduling/scheduler.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::with_cpus;

struct NodeCpusRecord : EngineObserver {
  std::map<std::string, std::pair<double, double>> at;  // id -> (start, finish)
  std::map<std::string, GpuIndex> first_gpu;
  std::map<std::string, std::string> rejected;
  void on_job_started(Time now, const ActiveJob& j) override {
    at[j.spec.id].first = now.seconds();
    first_gpu[j.spec.id] = j.gpus.front();
  }
  void on_job_finished(Time now, const ActiveJob& j) override {
    at[j.spec.id].second = now.seconds();
  }
  void on_job_rejected(Time, const ActiveJob& j, std::string_view reason) override {
    rejected[j.spec.id] = std::string(reason);
  }
};

using Span = std::pair<double, double>;

// Nodes of `gpus` GPUs with the given cores each (nullopt: not declared).
Cluster node_cpus_cluster(int gpus, std::vector<std::optional<double>> cores) {
  std::vector<NodeSpec> specs;
  for (std::size_t n = 0; n < cores.size(); ++n) {
    specs.push_back(NodeSpec{"n" + std::to_string(n), 0, gpus, 0, true, cores[n]});
  }
  return Cluster({testing::test_device()}, specs);
}

NodeCpusRecord run_node_cpus(Cluster& cluster, const SharingModel& model, std::vector<JobSpec> jobs,
                             std::string_view policy = "fifo",
                             const std::string& placement = "first-fit") {
  Scheduler scheduler(policy, make_placement_policy(placement), 64);
  testing::ListSource source(std::move(jobs));
  Engine engine(cluster, model, scheduler, source);
  NodeCpusRecord r;
  engine.add_observer(&r);
  const EngineStats stats = engine.run();
  EXPECT_EQ(stats.finished + stats.rejected, stats.arrived);
  if (cluster.tracks_cpus()) {
    for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
      EXPECT_EQ(cluster.cpu_free(n), cluster.cpu_capacity(n)) << "every core given back";
    }
  }
  return r;
}

TEST(NodeCpus, JobHundredthsRoundTiesToEven) {
  EXPECT_EQ(job_cpu_hundredths(with_cpus("a", 0, 1, 1.5, 1)), 150);
  EXPECT_EQ(job_cpu_hundredths(with_cpus("a", 0, 1, 0.125, 1)), 12);
  EXPECT_EQ(job_cpu_hundredths(with_cpus("a", 0, 1, 0, 1)), 0);
}

// One node of 4 GPUs and 8 cores. A (1 GPU, 6 cores) runs 0-100. B (1 GPU, 4 cores) finds 3
// empty GPUs but 2 free cores: it waits for A's cores and starts at 100, when A gives them back.
// C (1 GPU, 2 cores), behind B: under fifo it waits behind B (starts at 100 beside it: 4 + 2 of
// 8 cores); under greedy it starts at once (6 + 2 = 8 cores).
TEST(NodeCpus, AJobWaitsForCoresThoughGpusAreFreeAndGetsThemAtTheFinish) {
  ExclusiveModel model;
  for (const auto& placement : {"first-fit", "best-fit", "spread"}) {
    SCOPED_TRACE(placement);
    Cluster fifo_cluster = node_cpus_cluster(4, {8.0});
    const NodeCpusRecord fifo = run_node_cpus(
        fifo_cluster, model,
        {with_cpus("A", 0, 1, 6, 100), with_cpus("B", 0, 1, 4, 10), with_cpus("C", 0, 1, 2, 10)},
        "fifo", placement);
    EXPECT_EQ(fifo.at.at("A"), Span(0, 100));
    EXPECT_EQ(fifo.at.at("B"), Span(100, 110));
    EXPECT_EQ(fifo.at.at("C"), Span(100, 110));
    Cluster greedy_cluster = node_cpus_cluster(4, {8.0});
    const NodeCpusRecord greedy = run_node_cpus(
        greedy_cluster, model,
        {with_cpus("A", 0, 1, 6, 100), with_cpus("B", 0, 1, 4, 10), with_cpus("C", 0, 1, 2, 10)},
        "greedy", placement);
    EXPECT_EQ(greedy.at.at("B"), Span(100, 110));
    EXPECT_EQ(greedy.at.at("C"), Span(0, 10));
  }
}

// The same under a sharing model (two jobs per GPU, each at half speed when paired): A (1 GPU,
// 6 cores) on GPU 0; B (1 GPU, 4 cores) could join a GPU but not the node's 2 free cores: it
// waits until A ends at 100 and then runs alone (rate 1) to 110.
TEST(NodeCpus, CoresBindUnderSharingModelsToo) {
  testing::PairModel model;
  for (const auto& placement : {"first-fit", "best-fit", "spread"}) {
    SCOPED_TRACE(placement);
    Cluster cluster = node_cpus_cluster(2, {8.0});
    const NodeCpusRecord r =
        run_node_cpus(cluster, model, {with_cpus("A", 0, 1, 6, 100), with_cpus("B", 0, 1, 4, 10)},
                      "fifo", placement);
    EXPECT_EQ(r.at.at("A"), Span(0, 100));
    EXPECT_EQ(r.at.at("B"), Span(100, 110));
  }
}

// Two nodes of 2 GPUs: node 0 has 4 cores, node 1 has 8. A (1 GPU, 6 cores) fits node 0's GPUs
// but not its cores: first-fit, best-fit and spread all put it on node 1 (GPU 2).
TEST(NodeCpus, PlacementSkipsNodesWithoutTheCores) {
  ExclusiveModel model;
  for (const auto& placement : {"first-fit", "best-fit", "spread"}) {
    SCOPED_TRACE(placement);
    Cluster cluster = node_cpus_cluster(2, {4.0, 8.0});
    const NodeCpusRecord r =
        run_node_cpus(cluster, model, {with_cpus("A", 0, 1, 6, 10)}, "fifo", placement);
    EXPECT_EQ(r.first_gpu.at("A"), 2u);
  }
}

// A gang spread over nodes holds its cores in proportion to its GPUs on each: two nodes of 2
// GPUs and 3 cores. G (4 GPUs, 6 cores) holds ceil(6 x 2 / 4) = 3 cores on each node: it fits.
// H (4 GPUs, 7 cores) would need ceil(7 x 2 / 4) = 4 on each: it can never fit and is rejected
// at arrival with its reason. J (1 GPU, 1 core, t=1) waits for G's cores: both nodes have 0
// free until G ends at 50.
TEST(NodeCpus, GangsShareTheirCoresAmongTheirNodes) {
  ExclusiveModel model;
  Cluster cluster = node_cpus_cluster(2, {3.0, 3.0});
  const NodeCpusRecord r = run_node_cpus(
      cluster, model,
      {with_cpus("G", 0, 4, 6, 50), with_cpus("H", 0, 4, 7, 10), with_cpus("J", 1, 1, 1, 5)},
      "greedy");
  EXPECT_EQ(r.at.at("G"), Span(0, 50));
  EXPECT_EQ(r.rejected.at("H"), "CPU cores more than the nodes that could hold the gang have");
  EXPECT_EQ(r.at.at("J"), Span(50, 55));
}

// A job asking for more cores than any node that can hold its gang is rejected at arrival: one
// node of 8 cores, 2 GPUs; K (1 GPU, 8.5 cores). A job asking for exactly 8 runs.
TEST(NodeCpus, MoreCoresThanEveryNodeIsRejectedAtArrival) {
  ExclusiveModel model;
  Cluster cluster = node_cpus_cluster(2, {8.0});
  const NodeCpusRecord r =
      run_node_cpus(cluster, model, {with_cpus("K", 0, 1, 8.5, 10), with_cpus("L", 0, 1, 8, 10)});
  EXPECT_EQ(r.rejected.count("K"), 1u);
  EXPECT_EQ(r.at.at("L"), Span(0, 10));
}

// Nodes that declare no CPUs never run out: the same jobs as the first case all start at once.
TEST(NodeCpus, UndeclaredCpusAreUnlimited) {
  ExclusiveModel model;
  Cluster cluster = node_cpus_cluster(4, {std::nullopt});
  EXPECT_FALSE(cluster.tracks_cpus());
  const NodeCpusRecord r = run_node_cpus(
      cluster, model,
      {with_cpus("A", 0, 1, 6, 100), with_cpus("B", 0, 1, 4000, 10), with_cpus("C", 0, 1, 2, 10)});
  EXPECT_EQ(r.at.at("B"), Span(0, 10));
  EXPECT_EQ(r.at.at("C"), Span(0, 10));
}

// In a cluster where one node declares cores and another does not, the second is unlimited:
// node 0 (2 cores), node 1 (undeclared). A (1 GPU, 5 cores) goes to node 1 (GPU 2).
TEST(NodeCpus, AnUndeclaredNodeBesideDeclaredOnesIsUnlimited) {
  ExclusiveModel model;
  Cluster cluster = node_cpus_cluster(2, {2.0, std::nullopt});
  EXPECT_TRUE(cluster.tracks_cpus());
  const NodeCpusRecord r = run_node_cpus(cluster, model, {with_cpus("A", 0, 1, 5, 10)});
  EXPECT_EQ(r.first_gpu.at("A"), 2u);
}

// Taking beyond what is free is a broken precondition, not a silent overdraft.
TEST(NodeCpus, TakingMoreThanFreeThrows) {
  Cluster cluster = node_cpus_cluster(2, {1.0});
  const std::vector<GpuIndex> gpus{0};
  cluster.take_cpus(gpus, 100);
  EXPECT_EQ(cluster.cpu_free(0), 0);
  EXPECT_THROW(cluster.take_cpus(gpus, 1), std::logic_error);
}

}  // namespace
}  // namespace gpumux
