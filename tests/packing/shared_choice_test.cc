// The FGD study's policies make the same choices in `gpumux run` (SharePlacement over the
// simulated cluster) as in `gpumux pack` (PackingSimulator) on the same state: one
// implementation, packing::NodeChooser, behind both.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "models/fractional/fractional_model.h"
#include "packing/packing_sim.h"
#include "sim/placement/share_placement.h"
#include "sim/placement/share_view.h"

namespace gpumux {
namespace {

constexpr int kNodes = 7;
constexpr int kGpusPerNode = 4;
constexpr std::uint64_t kSeed = 11;

// A deterministic mix of shares and whole-GPU gangs, more than the cluster holds.
std::vector<packing::PodSpec> workload() {
  const int milli[] = {500, 250, 1000, 300, 700, 1000, 150, 1000, 600, 450};
  const int gangs[] = {1, 1, 2, 1, 1, 1, 1, 4, 1, 1};
  std::vector<packing::PodSpec> pods;
  for (int i = 0; i < 80; ++i) {
    packing::PodSpec p;
    p.name = "p" + std::to_string(i);
    p.num_gpus = gangs[(i * 7) % 10];
    p.gpu_milli = p.num_gpus > 1 ? 1000 : milli[(i * 3) % 10];
    pods.push_back(p);
  }
  return pods;
}

// The pods as `run` counts a trace's jobs, by kind.
JobKindCounts kinds_of(const std::vector<packing::PodSpec>& pods) {
  JobKindCounts kinds;
  for (const auto& p : pods) {
    JobSpec job;
    job.gpus = p.num_gpus;
    job.gpu_milli = p.gpu_milli;
    kinds.add(job);
  }
  return kinds;
}

struct Choice {
  int node = -1;
  std::set<int> gpus;  // indices within the node
  bool operator==(const Choice&) const = default;
};

std::vector<Choice> pack_choices(packing::Policy policy, const std::vector<packing::PodSpec>& pods) {
  std::vector<packing::NodeSpec> nodes;
  for (int n = 0; n < kNodes; ++n) {
    nodes.push_back({"n" + std::to_string(n), packing::kMaxSpecCpuMilli, MemoryMiB(1 << 30),
                     kGpusPerNode, "G"});
  }
  packing::PackingSimulator sim(nodes, pods, policy, kSeed);
  std::vector<Choice> out;
  for (const auto& p : pods) {
    Choice c;
    if (auto placed = sim.schedule(p)) {
      c.node = placed->node;
      for (int i = 0; i < placed->num_gpus; ++i) c.gpus.insert(placed->gpus[static_cast<std::size_t>(i)]);
    }
    out.push_back(c);
  }
  return out;
}

std::vector<Choice> run_choices(packing::Policy policy, const std::vector<packing::PodSpec>& pods) {
  DeviceProfile device;
  device.name = "G";
  device.memory = MemoryMiB(1 << 20);
  device.sms = 80;
  std::vector<NodeSpec> nodes;
  for (int n = 0; n < kNodes; ++n) nodes.push_back({"n" + std::to_string(n), 0, kGpusPerNode, 0, true});
  Cluster cluster({device}, nodes);
  nlohmann::json params = nlohmann::json::object();
  JsonObject o(params, "s.json", "/sharing/params");
  const FractionalModel model(o);
  JobTable jobs;
  GpuViewBuilder views(cluster, jobs);
  ShareView view(cluster, kinds_of(pods), "s.json");
  SharePlacement placement("policy", policy, view, kSeed);
  std::vector<Choice> out;
  std::vector<GpuIndex> gpus;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const JobSlot slot = jobs.acquire();
    ActiveJob& job = jobs[slot];
    job.spec.id = pods[i].name;
    job.spec.gpus = pods[i].num_gpus;
    job.spec.gpu_milli = pods[i].gpu_milli;
    job.ordinal = i;
    Choice c;
    if (placement.place(cluster, model, views, job.spec, gpus)) {
      c.node = static_cast<int>(cluster.gpu(gpus[0]).node);
      const GpuIndex first = cluster.topology().first_gpu(static_cast<NodeIndex>(c.node));
      for (GpuIndex g : gpus) {
        EXPECT_EQ(cluster.gpu(g).node, static_cast<NodeIndex>(c.node));
        c.gpus.insert(static_cast<int>(g - first));
        cluster.add_resident(g, slot, MemoryMiB(0));
      }
      job.gpus = gpus;
      view.on_job_started(Time::zero(), job);
    }
    out.push_back(c);
  }
  return out;
}

// `run` counts its trace by kind as it streams; the typical pods are those `pack` computes from
// the whole list: same kinds, counts and order, same cut.
TEST(SharedChoice, StreamedKindCountsGiveTheTypicalPodsOfTheWholeList) {
  auto pods = workload();
  // A long tail of rare kinds, so that the 95% cut leaves some out.
  for (int i = 0; i < 6; ++i) {
    packing::PodSpec p;
    p.num_gpus = 1;
    p.gpu_milli = 10 + i;
    pods.push_back(p);
  }
  packing::GpuModelTable models;
  models.intern("G", "device 'G'");
  const packing::TypicalPods whole = packing::compute_typical_pods(pods, models);
  const JobKindCounts kinds = kinds_of(pods);
  const packing::TypicalPods streamed = kinds.typical_pods(models);
  EXPECT_LT(whole.pods.size(), kinds.kinds()) << "the cut must leave some kinds out";
  EXPECT_EQ(streamed.total_count, whole.total_count);
  EXPECT_EQ(streamed.kept_count, whole.kept_count);
  ASSERT_EQ(streamed.pods.size(), whole.pods.size());
  for (std::size_t i = 0; i < whole.pods.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& a = streamed.pods[i];
    const auto& b = whole.pods[i];
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.gpu_spec, b.gpu_spec);
    EXPECT_EQ(a.demand.num_gpus, b.demand.num_gpus);
    EXPECT_EQ(a.demand.gpu_milli, b.demand.gpu_milli);
    EXPECT_EQ(a.demand.cpu_milli, b.demand.cpu_milli);
    EXPECT_EQ(a.demand.score_cpu_milli, b.demand.score_cpu_milli);
    EXPECT_EQ(a.demand.memory_mib, b.demand.memory_mib);
    EXPECT_EQ(a.demand.any_model, b.demand.any_model);
    EXPECT_EQ(a.demand.model_mask, b.demand.model_mask);
  }
}

TEST(SharedChoice, RunChoosesAsPackDoesUnderEveryPolicy) {
  const auto pods = workload();
  for (packing::Policy policy : packing::kAllPolicies) {
    SCOPED_TRACE(std::string(packing::policy_name(policy)));
    const auto pack = pack_choices(policy, pods);
    const auto run = run_choices(policy, pods);
    ASSERT_EQ(pack.size(), run.size());
    int placed = 0, failed = 0;
    for (std::size_t i = 0; i < pack.size(); ++i) {
      EXPECT_EQ(pack[i].node, run[i].node) << "pod " << i;
      EXPECT_EQ(pack[i].gpus, run[i].gpus) << "pod " << i;
      (pack[i].node >= 0 ? placed : failed)++;
    }
    // The sequence must exercise both outcomes, or the comparison says little.
    EXPECT_GT(placed, 10);
    EXPECT_GT(failed, 0);
  }
}

// Out-of-service GPUs and GPUs the model refuses are never chosen (the mask), though the
// policy's milli-GPU count alone would allow them.
TEST(SharedChoice, RunNeverPicksAGpuTheModelRefuses) {
  DeviceProfile device;
  device.name = "G";
  device.memory = MemoryMiB(16000);
  device.sms = 80;
  Cluster cluster({device}, {NodeSpec{"n0", 0, 2, 0, true}});
  nlohmann::json params = nlohmann::json::object();
  JsonObject o(params, "s.json", "/sharing/params");
  const FractionalModel model(o);
  JobTable jobs;
  GpuViewBuilder views(cluster, jobs);
  std::vector<packing::PodSpec> pods(1);
  pods[0].num_gpus = 1;
  pods[0].gpu_milli = 500;
  ShareView view(cluster, kinds_of(pods), "s.json");
  SharePlacement placement("fgd", packing::Policy::kFgd, view, kSeed);
  cluster.set_available(0, false);
  JobSpec job;
  job.gpu_milli = 500;
  job.memory = MemoryMiB(1000);
  std::vector<GpuIndex> out;
  ASSERT_TRUE(placement.place(cluster, model, views, job, out));
  EXPECT_EQ(out, std::vector<GpuIndex>{1});
  // A quota larger than the device: no GPU admits it, whatever the milli left.
  job.memory = MemoryMiB(20000);
  EXPECT_FALSE(placement.place(cluster, model, views, job, out));
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace gpumux
