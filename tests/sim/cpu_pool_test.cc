// CPU pools (node groups of gpus_per_node 0 with cpus): nodes of cores alone. CPU-only jobs run
// there; a GPU job never does, under every topology policy and queue, even when the pool is
// node 0 (first in every scan). Expected times are worked out by hand above each check; every
// run has the invariant checks on.
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

struct CpuPoolRecord : EngineObserver {
  const Cluster* cluster = nullptr;
  std::map<std::string, std::pair<double, double>> at;  // id -> (start, finish)
  std::map<std::string, NodeIndex> node;                // CPU-only: its node; GPU: its GPUs'
  std::map<std::string, std::string> rejected;
  void on_job_started(Time now, const ActiveJob& j) override {
    at[j.spec.id].first = now.seconds();
    if (j.gpus.empty()) {
      node[j.spec.id] = j.cpu_node;
      return;
    }
    node[j.spec.id] = cluster->gpu(j.gpus.front()).node;
    for (GpuIndex g : j.gpus) EXPECT_NE(cluster->gpu(g).node, 0u) << j.spec.id << " on the pool";
  }
  void on_job_finished(Time now, const ActiveJob& j) override {
    at[j.spec.id].second = now.seconds();
  }
  void on_job_rejected(Time, const ActiveJob& j, std::string_view reason) override {
    rejected[j.spec.id] = std::string(reason);
  }
};

// Node 0: the CPU pool (16 cores, no GPU); nodes 1 and 2: 2 GPUs each, without declared CPUs
// when `gpu_cpus` is nullopt (they then never take a CPU-only job).
Cluster pool_cluster(std::optional<double> gpu_cpus) {
  std::vector<NodeSpec> specs = {NodeSpec{"cpu-0", kNoDeviceIndex, 0, 0, true, 16.0},
                                 NodeSpec{"gpu-0", 0, 2, 1, true, gpu_cpus},
                                 NodeSpec{"gpu-1", 0, 2, 1, true, gpu_cpus}};
  return Cluster({testing::test_device()}, specs);
}

CpuPoolRecord run_cpu_pool(Cluster& cluster, std::vector<JobSpec> jobs, std::string_view policy,
                           const std::string& placement) {
  static const ExclusiveModel exclusive;
  Scheduler scheduler(policy, make_placement_policy(placement), 64);
  testing::ListSource source(std::move(jobs));
  testing::CheckedEngine engine(cluster, exclusive, scheduler, source);
  CpuPoolRecord r;
  r.cluster = &cluster;
  engine.add_observer(&r);
  const EngineStats stats = engine.run();
  EXPECT_EQ(stats.finished + stats.rejected, stats.arrived);
  EXPECT_EQ(cluster.cpu_free(0), cluster.cpu_capacity(0)) << "every core given back";
  return r;
}

TEST(CpuPool, NodesWithoutGpusCountNoGpuAndNoRoom) {
  const Cluster cluster = pool_cluster(std::nullopt);
  EXPECT_EQ(cluster.gpu_count(), 4u);
  EXPECT_EQ(cluster.empty_gpus(0), 0);
  EXPECT_EQ(cluster.first_node_with_empty(1), NodeIndex{1});
  EXPECT_TRUE(cluster.declares_cpus(0));
  EXPECT_FALSE(cluster.declares_cpus(1));
  EXPECT_LT(cluster.node_room(0), 0.0);  // -infinity: no GPU to take any job
}

// G1 (2 GPUs, 100 s) at 0, G3 (2 GPUs, 50 s) at 1, G2 (1 GPU, 100 s) at 2; the CPU-only C1
// and C2 (8 cores, 40 s) at 3 and 4, C3 (4 cores, 10 s) at 5. G1 and G3 fill the two GPU
// nodes; G2 waits for G3 (51-151). Every CPU-only job runs on the pool, at full speed, two at
// a time at most (16 cores). Under greedy, nothing holds them behind G2: C1 3-43, C2 4-44, and
// C3 waits for C1's cores (43-53).
TEST(CpuPool, CpuJobsRunOnThePoolAndGpuJobsNeverDo) {
  for (const auto policy : {"fifo", "fifo-backfill", "greedy"}) {
    for (const auto placement : {"first-fit", "best-fit", "spread"}) {
      SCOPED_TRACE(std::string(policy) + " " + placement);
      Cluster cluster = pool_cluster(std::nullopt);
      const CpuPoolRecord r =
          run_cpu_pool(cluster,
                       {with_cpus("G1", 0, 2, 0, 100), with_cpus("G3", 1, 2, 0, 50),
                        with_cpus("G2", 2, 1, 0, 100), with_cpus("C1", 3, 0, 8, 40),
                        with_cpus("C2", 4, 0, 8, 40), with_cpus("C3", 5, 0, 4, 10)},
                       policy, placement);
      EXPECT_TRUE(r.rejected.empty());
      for (const char* c : {"C1", "C2", "C3"}) EXPECT_EQ(r.node.at(c), 0u) << c;
      EXPECT_EQ(r.at.at("C1").second - r.at.at("C1").first, 40.0);
      EXPECT_EQ(r.at.at("C3").second - r.at.at("C3").first, 10.0);
      EXPECT_GE(r.at.at("C3").first, std::min(r.at.at("C1").second, r.at.at("C2").second));
      EXPECT_EQ(r.at.at("G2"), std::make_pair(51.0, 151.0));
      if (std::string_view(policy) == "greedy") {
        EXPECT_EQ(r.at.at("C1"), std::make_pair(3.0, 43.0));
        EXPECT_EQ(r.at.at("C2"), std::make_pair(4.0, 44.0));
        EXPECT_EQ(r.at.at("C3"), std::make_pair(43.0, 53.0));
      }
    }
  }
}

// With cores declared on the GPU nodes too, a CPU-only job may go to either kind of node (the
// policy's rule over every node that declares CPUs); first-fit takes the pool, node 0.
TEST(CpuPool, GpuNodesWithCoresAlsoTakeCpuJobs) {
  Cluster cluster = pool_cluster(8.0);
  const CpuPoolRecord r = run_cpu_pool(
      cluster,
      {with_cpus("C1", 0, 0, 16, 10), with_cpus("C2", 0, 0, 8, 10), with_cpus("G", 0, 2, 4, 10)},
      "fifo", "first-fit");
  EXPECT_EQ(r.node.at("C1"), 0u);  // the pool's 16
  EXPECT_EQ(r.node.at("C2"), 1u);  // the pool is full: gpu-0's 8
  EXPECT_EQ(r.node.at("G"), 2u);   // gpu-0 has no core left for G's 4
  EXPECT_EQ(r.at.at("G"), std::make_pair(0.0, 10.0));
}

// A cluster of CPU pools alone: GPU jobs are rejected at arrival as too large for the
// cluster, CPU-only jobs run.
TEST(CpuPool, WithoutGpusEveryGpuJobIsRejected) {
  Cluster cluster({}, {NodeSpec{"cpu-0", kNoDeviceIndex, 0, 0, true, 8.0}});
  EXPECT_EQ(cluster.gpu_count(), 0u);
  const CpuPoolRecord r = run_cpu_pool(
      cluster, {with_cpus("G", 0, 1, 0, 10), with_cpus("C", 0, 0, 4, 10)}, "fifo", "first-fit");
  EXPECT_EQ(r.rejected.at("G"), "gang larger than the cluster");
  EXPECT_EQ(r.at.at("C"), std::make_pair(0.0, 10.0));
}

}  // namespace
}  // namespace gpumux
