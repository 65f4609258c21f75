// Why the head of the queue waited (sim/core/queue_reason.h): hand-built clusters where the head
// is blocked for one known reason over a known time, the attribution of queued job-seconds
// (analysis/metrics/queue_reason_metrics.h), and a property over random small runs: the reasons
// sum to the total, and the total is the jobs' summed queueing delays.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "analysis/metrics/queue_reason_metrics.h"
#include "models/device_registry.h"
#include "models/exclusive_model.h"
#include "models/registry.h"
#include "sim/base/json_fields.h"
#include "sim/engine/engine.h"
#include "sim/placement/blocked_reason.h"
#include "sim/placement/registry.h"
#include "sim/placement/share_placement.h"
#include "sim/placement/share_view.h"
#include "sim/scheduling/scheduler.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::job;
using testing::with_cpus;

const DeviceProfile& builtin_a100() {
  static const DeviceRegistry registry = DeviceRegistry::with_builtins();
  return registry.get("A100-40GB", "test");
}

std::unique_ptr<SharingModel> model_named(const std::string& name, nlohmann::json params = {}) {
  if (params.is_null()) params = nlohmann::json::object();
  JsonObject o(params, "s.json", "/sharing/params");
  return make_sharing_model(name, o, "s.json#/sharing/model");
}

// Nodes of `gpus` A100s each (`cpus` cores each when given).
Cluster a100_cluster(int nodes, int gpus, std::optional<double> cpus = std::nullopt) {
  std::vector<NodeSpec> specs;
  for (int n = 0; n < nodes; ++n) {
    specs.push_back(NodeSpec{"n" + std::to_string(n), 0, gpus, 0, true, cpus});
  }
  return Cluster({builtin_a100()}, specs);
}

JobSpec with_memory_mib(JobSpec j, std::int64_t mib) {
  j.memory = MemoryMiB(mib);
  return j;
}

struct Starts : EngineObserver {
  std::map<std::string, double> at;
  void on_job_started(Time now, const ActiveJob& j) override { at[j.spec.id] = now.seconds(); }
};

struct Outcome {
  QueueReasonMetrics reasons;
  Starts starts;
};

// Runs `jobs` to the end on `cluster` under `model`; `placement` defaults to first-fit.
void run_queue_reason(Outcome& out, Cluster& cluster, const SharingModel& model,
                      std::vector<JobSpec> jobs, std::string_view queue = "fifo",
                      std::unique_ptr<PlacementPolicy> placement = nullptr,
                      std::vector<EngineObserver*> first = {}) {
  if (!placement) placement = make_placement_policy("first-fit");
  Scheduler scheduler(queue, std::move(placement), 64);
  testing::ListSource source(std::move(jobs));
  testing::CheckedEngine engine(cluster, model, scheduler, source);
  for (EngineObserver* o : first) engine.add_observer(o);
  engine.add_observer(&out.reasons);
  engine.add_observer(&out.starts);
  engine.run();
}

// Only `reason` has queued job-seconds, `job_s` of them, and they are the total.
void expect_only(const QueueReasonMetrics& m, QueueReason reason, double job_s) {
  EXPECT_DOUBLE_EQ(m.total_job_s(), job_s);
  for (std::size_t r = 0; r < kQueueReasonCount; ++r) {
    const auto each = static_cast<QueueReason>(r);
    EXPECT_DOUBLE_EQ(m.job_s(each), each == reason ? job_s : 0.0) << kQueueReasonNames[r];
  }
}

// A holds 3 of 4 GPUs until 100 s; B (2 GPUs, at 10 s) and C behind it (at 20 s) wait for it:
// 90 + 80 job-seconds, all for want of GPUs.
TEST(QueueReason, NotEnoughGpus) {
  Cluster cluster = testing::make_cluster(1, 4);
  ExclusiveModel model;
  Outcome out;
  run_queue_reason(out, cluster, model,
                   {job("A", 0, 3, 100), job("B", 10, 2, 10), job("C", 20, 1, 10)});
  ASSERT_DOUBLE_EQ(out.starts.at["B"], 100);
  ASSERT_DOUBLE_EQ(out.starts.at["C"], 100);
  expect_only(out.reasons, QueueReason::kGpus, 170);
}

// Time-slicing admits B beside A only if their summed peaks fit the 40 GB: they do not.
TEST(QueueReason, GpuMemory) {
  Cluster cluster = a100_cluster(1, 1);
  const auto model = model_named("timeslice");
  Outcome out;
  run_queue_reason(
      out, cluster, *model,
      {with_memory_mib(job("A", 0, 1, 100), 30000), with_memory_mib(job("B", 10, 1, 10), 20000)});
  ASSERT_GT(out.starts.at["B"], 10);
  expect_only(out.reasons, QueueReason::kMemory, out.starts.at["B"] - 10);
}

// One replica per GPU: B fits by memory but the model refuses a second resident.
TEST(QueueReason, AdmissionRefusal) {
  Cluster cluster = a100_cluster(1, 1);
  const auto model = model_named("timeslice", {{"admission", "replicas"}, {"replicas", 1}});
  Outcome out;
  run_queue_reason(
      out, cluster, *model,
      {with_memory_mib(job("A", 0, 1, 100), 1000), with_memory_mib(job("B", 10, 1, 10), 1000)});
  ASSERT_DOUBLE_EQ(out.starts.at["B"], 100);
  expect_only(out.reasons, QueueReason::kAdmission, 90);
}

// A takes every core of the node with one GPU: three GPUs stay empty, and B waits for cores.
TEST(QueueReason, CpuCores) {
  std::vector<NodeSpec> specs = {NodeSpec{"n0", 0, 4, 0, true, 8.0}};
  Cluster cluster({testing::test_device()}, specs);
  ExclusiveModel model;
  Outcome out;
  run_queue_reason(out, cluster, model,
                   {with_cpus("A", 0, 1, 8, 100), with_cpus("B", 10, 1, 2, 10)});
  ASSERT_DOUBLE_EQ(out.starts.at["B"], 100);
  expect_only(out.reasons, QueueReason::kCpuCores, 90);
}

// The share-aware policies keep a gang on one node. A and B take all the cores of a node each
// (so they land on different nodes) and one GPU: one GPU is free on each node, two in all, and
// C, a gang of 2 asking for no cores, has no node with both.
TEST(QueueReason, GangThatNoNodeHolds) {
  Cluster cluster = a100_cluster(2, 2, 4.0);
  const auto model = model_named("timeslice");
  std::vector<JobSpec> jobs = {with_memory_mib(with_cpus("A", 0, 1, 4, 100), 1000),
                               with_memory_mib(with_cpus("B", 0, 1, 4, 100), 1000),
                               with_memory_mib(job("C", 10, 2, 10), 1000)};
  JobKindCounts kinds;
  for (const JobSpec& j : jobs) kinds.add(j);
  ShareView view(cluster, kinds, "s.json");
  auto placement = std::make_unique<SharePlacement>("fgd", packing::Policy::kFgd, view, 7);
  Outcome out;
  run_queue_reason(out, cluster, *model, jobs, "fifo", std::move(placement), {&view});
  ASSERT_DOUBLE_EQ(out.starts.at["A"], 0);
  ASSERT_DOUBLE_EQ(out.starts.at["B"], 0);
  ASSERT_GT(out.starts.at["C"], 10);
  expect_only(out.reasons, QueueReason::kGang, out.starts.at["C"] - 10);
}

// Two 3g.20gb instances, both held: C fits an instance, and none is free.
TEST(QueueReason, MigProfileUnavailable) {
  Cluster cluster = a100_cluster(1, 1);
  const auto model = model_named("mig", {{"layout", {"3g.20gb", "3g.20gb"}}});
  Outcome out;
  run_queue_reason(
      out, cluster, *model,
      {with_memory_mib(job("A", 0, 1, 100), 15000), with_memory_mib(job("B", 0, 1, 200), 15000),
       with_memory_mib(job("C", 10, 1, 10), 15000)});
  ASSERT_GT(out.starts.at["C"], 10);
  expect_only(out.reasons, QueueReason::kMigFit, out.starts.at["C"] - 10);
}

// A pooled greedy queue starts nothing once neither GPU nor CPU is left, not even a job asking
// for none: B fits, and the policy holds it back.
TEST(QueueReason, PolicyHoldsBackAJobThatFits) {
  Cluster cluster({testing::test_device()}, {NodeSpec{"pool", 0, 1, 0, false}}, PoolSpec{1, 1.0});
  ExclusiveModel model;
  JobSpec a = with_cpus("A", 0, 1, 1, 100);
  JobSpec b = with_cpus("B", 10, 0, 0, 10);
  Outcome out;
  run_queue_reason(out, cluster, model, {a, b}, "greedy");
  ASSERT_DOUBLE_EQ(out.starts.at["B"], 100);
  expect_only(out.reasons, QueueReason::kPolicy, 90);
}

// A pooled head waits for cores while its GPU amount fits, then the next head for GPUs.
TEST(QueueReason, PooledCoresThenGpus) {
  Cluster cluster({testing::test_device()}, {NodeSpec{"pool", 0, 2, 0, false}}, PoolSpec{2, 2.0});
  ExclusiveModel model;
  Outcome out;
  // A holds 1 GPU and 1 of 4 cores to 100 s, B 0 GPUs and 3 cores to 50 s. C (1 GPU, 1 core,
  // at 10 s) waits for cores to 50 s; D (2 GPUs, at 20 s) behind it, then for GPUs to 150 s
  // (A ends at 100 s, C at 150 s).
  run_queue_reason(out, cluster, model,
                   {with_cpus("A", 0, 1, 1, 100), with_cpus("B", 0, 0, 3, 50),
                    with_cpus("C", 10, 1, 1, 100), with_cpus("D", 20, 2, 0, 10)});
  ASSERT_DOUBLE_EQ(out.starts.at["C"], 50);
  ASSERT_DOUBLE_EQ(out.starts.at["D"], 150);
  // 10-20: C (cores); 20-50: C and D (cores); 50-150: D (GPUs).
  EXPECT_DOUBLE_EQ(out.reasons.job_s(QueueReason::kCpuCores), 10 + 2 * 30);
  EXPECT_DOUBLE_EQ(out.reasons.job_s(QueueReason::kGpus), 100);
  EXPECT_DOUBLE_EQ(out.reasons.total_job_s(), 170);
}

// The first check, in order, after which too few GPUs are left; kGang when enough pass.
TEST(BlockedTally, FirstBindingReason) {
  BlockedTally t;
  t.refused[static_cast<std::size_t>(QueueReason::kUnavailable)] = 1;
  t.refused[static_cast<std::size_t>(QueueReason::kGpus)] = 5;
  t.refused[static_cast<std::size_t>(QueueReason::kCpuCores)] = 2;
  t.passing = 0;
  // 8 GPUs: 7 available, 2 not taken, none with cores.
  EXPECT_EQ(first_binding_reason(t, 8, 8), QueueReason::kUnavailable);
  EXPECT_EQ(first_binding_reason(t, 8, 3), QueueReason::kGpus);
  EXPECT_EQ(first_binding_reason(t, 8, 2), QueueReason::kCpuCores);
  t.refused[static_cast<std::size_t>(QueueReason::kCpuCores)] = 0;
  t.passing = 2;
  EXPECT_EQ(first_binding_reason(t, 8, 2), QueueReason::kGang);
}

// GPUs out of service count before GPUs taken: with both GPUs unavailable the head waits for
// them; with one unavailable and one taken, for GPUs.
TEST(BlockedTally, UnavailableGpus) {
  Cluster cluster = testing::make_cluster(1, 2);
  ExclusiveModel model;
  JobTable jobs;
  GpuViewBuilder views(cluster, jobs);
  const JobSpec one = job("X", 0, 1, 1);
  cluster.set_available(0, false);
  cluster.set_available(1, false);
  EXPECT_EQ(cluster.unavailable_gpus_total(), 2u);
  EXPECT_EQ(topology_blocked_reason(cluster, model, views, one), QueueReason::kUnavailable);
  cluster.set_available(1, true);
  const JobSlot slot = jobs.acquire();
  jobs[slot].spec = one;
  cluster.add_resident(1, slot, MemoryMiB(0));
  EXPECT_EQ(topology_blocked_reason(cluster, model, views, one), QueueReason::kGpus);
}

// A model as `inner`, without room_refusal: the blocked reason then comes from a look at every
// GPU instead of the room index.
class WithoutRoomAnswers : public SharingModel, public RoomBound {
 public:
  explicit WithoutRoomAnswers(const SharingModel& inner) : inner_(inner) {}
  std::string_view name() const override { return inner_.name(); }
  bool admits(const GpuView& g, const JobSpec& j) const override { return inner_.admits(g, j); }
  QueueReason refusal(const GpuView& g, const JobSpec& j) const override {
    return inner_.refusal(g, j);
  }
  void compute_rates(const GpuView& g, std::span<double> r, GpuLoad& l) const override {
    inner_.compute_rates(g, r, l);
  }
  bool requires_empty_gpu() const override { return inner_.requires_empty_gpu(); }
  const RoomBound* room_bound() const override { return inner_room_ ? this : nullptr; }
  double gpu_room(const GpuView& g) const override { return inner_room_->gpu_room(g); }
  double job_need(const JobSpec& j) const override { return inner_room_->job_need(j); }
  bool room_decides_admission() const override { return inner_room_->room_decides_admission(); }
  bool room_decides_admission_for(const JobSpec& j) const override {
    return inner_room_->room_decides_admission_for(j);
  }
  std::vector<ModelParameter> parameters() const override { return {}; }

 private:
  const SharingModel& inner_;
  const RoomBound* inner_room_ = inner_.room_bound();
};

// Under room-decided admission the reason is counted from the cluster's room index; it is the
// reason a look at every GPU gives, over random cluster states and heads.
TEST(BlockedTally, RoomIndexGivesTheReasonEveryGpuGives) {
  std::mt19937_64 rng(7);
  std::set<QueueReason> seen;
  for (const char* admission : {"memory", "replicas"}) {
    const auto model =
        model_named("timeslice", admission == std::string("memory")
                                     ? nlohmann::json{{"max_jobs_per_gpu", 3}}
                                     : nlohmann::json{{"admission", "replicas"}, {"replicas", 2}});
    const WithoutRoomAnswers by_gpu(*model);
    for (int state = 0; state < 40; ++state) {
      Cluster cluster = a100_cluster(3, 4);
      JobTable jobs;
      GpuViewBuilder views(cluster, jobs);
      for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) {
        const int residents = static_cast<int>(rng() % 4);
        for (int k = 0; k < residents; ++k) {
          const JobSpec j =
              with_memory_mib(job("r", 0, 1, 1), 2000 + static_cast<std::int64_t>(rng() % 12000));
          if (!model->admits(views.view(g), j)) break;
          const JobSlot slot = jobs.acquire();
          jobs[slot].spec = j;
          cluster.add_resident(g, slot, j.memory);
        }
        cluster.set_room(g, model->room_bound()->gpu_room(views.view(g)));
        if (rng() % 10 == 0) cluster.set_available(g, false);
      }
      for (int head = 0; head < 5; ++head) {
        const JobSpec j = with_memory_mib(job("h", 0, 1 + static_cast<int>(rng() % 8), 1),
                                          1000 + static_cast<std::int64_t>(rng() % 39000));
        const QueueReason indexed = topology_blocked_reason(cluster, *model, views, j);
        EXPECT_EQ(indexed, topology_blocked_reason(cluster, by_gpu, views, j))
            << admission << " state " << state << " head " << head;
        seen.insert(indexed);
      }
    }
  }
  EXPECT_GE(seen.size(), 3u) << "the states must block heads for several reasons";
}

// Queueing delays, from starts and the run's end, to check the total against.
struct Delays : EngineObserver {
  std::map<std::string, double> submit, start;
  double end = 0.0;
  std::uint64_t kills = 0;
  void on_job_arrived(Time now, const ActiveJob& j) override { submit[j.spec.id] = now.seconds(); }
  void on_job_rejected(Time, const ActiveJob& j, std::string_view) override {
    submit.erase(j.spec.id);
  }
  void on_job_started(Time now, const ActiveJob& j) override {
    if (!start.count(j.spec.id)) start[j.spec.id] = now.seconds();
  }
  void on_job_killed(Time, const ActiveJob&, double) override { ++kills; }
  void on_run_end(Time now, std::span<const ActiveJob* const>) override { end = now.seconds(); }
  double summed() const {
    double s = 0.0;
    for (const auto& [id, at] : submit) {
      const auto started = start.find(id);
      s += (started == start.end() ? end : started->second) - at;
    }
    return s;
  }
};

struct RandomCase {
  const char* model;
  nlohmann::json params;
  const char* queue;
  QueueOrder order;
  const char* placement;
};

// Over random small runs of several models, queue policies and placements (some stopped at a
// time limit, some on nodes with CPUs): the reasons sum to the total, and the total is the
// summed queueing delays (to the end for jobs still queued).
TEST(QueueReasonProperty, ReasonsSumToTotalAndTotalIsSummedDelays) {
  const std::vector<RandomCase> cases = {
      {"exclusive", {}, "fifo", QueueOrder::kArrival, "first-fit"},
      {"exclusive", {}, "fifo-backfill", QueueOrder::kArrival, "best-fit"},
      {"exclusive", {}, "greedy", QueueOrder::kShortest, "spread"},
      {"timeslice", {}, "fifo", QueueOrder::kArrival, "best-fit"},
      {"timeslice", {{"max_jobs_per_gpu", 2}}, "greedy", QueueOrder::kArrival, "first-fit"},
      {"mps", {}, "fifo-backfill", QueueOrder::kArrival, "spread"},
      {"fractional", {}, "greedy", QueueOrder::kShortest, "first-fit"},
      {"mig",
       {{"layout", {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}},
       "fifo",
       QueueOrder::kArrival,
       "best-fit"},
  };
  std::mt19937_64 rng(20261206);
  int queued_runs = 0;
  for (const RandomCase& c : cases) {
    for (int trial = 0; trial < 6; ++trial) {
      SCOPED_TRACE(std::string(c.model) + " " + c.queue + " " + c.placement + " trial " +
                   std::to_string(trial));
      const bool cpus = trial % 2 == 1;
      Cluster cluster = a100_cluster(3, 4, cpus ? std::optional<double>(16.0) : std::nullopt);
      const auto model = model_named(c.model, c.params);
      std::vector<JobSpec> jobs;
      double t = 0.0;
      for (int i = 0; i < 40; ++i) {
        t += std::uniform_real_distribution<double>(0.0, 20.0)(rng);
        const int gpus =
            c.model == std::string("mig") ? 1 : std::vector<int>{1, 1, 1, 2, 4, 6}[rng() % 6];
        JobSpec j = job("j" + std::to_string(i), std::floor(t), gpus,
                        1.0 + static_cast<double>(rng() % 200));
        j.memory = MemoryMiB(1000 + static_cast<std::int64_t>(rng() % 30000));
        j.sm_util = 0.2 + 0.1 * static_cast<double>(rng() % 7);
        if (c.model == std::string("fractional")) {
          j.gpu_milli = gpus == 1 ? 100 * static_cast<int>(1 + rng() % 10) : 1000;
        }
        if (cpus) j.cpus = static_cast<double>(rng() % 9);
        jobs.push_back(j);
      }
      Scheduler scheduler(c.queue, make_placement_policy(c.placement), 8, c.order);
      testing::ListSource source(jobs);
      EngineOptions options;
      if (trial >= 4) options.horizon = Time::from_seconds(300);
      testing::CheckedEngine engine(cluster, *model, scheduler, source, options);
      QueueReasonMetrics reasons;
      Delays delays;
      engine.add_observer(&reasons);
      engine.add_observer(&delays);
      engine.run();
      double summed = 0.0;
      for (std::size_t r = 0; r < kQueueReasonCount; ++r) {
        summed += reasons.job_s(static_cast<QueueReason>(r));
      }
      EXPECT_NEAR(summed, reasons.total_job_s(), 1e-9 * (1.0 + reasons.total_job_s()));
      ASSERT_EQ(delays.kills, 0u) << "a kill queues a job twice: not this property's runs";
      EXPECT_NEAR(reasons.total_job_s(), delays.summed(), 1e-6 * (1.0 + delays.summed()));
      queued_runs += reasons.total_job_s() > 0.0 ? 1 : 0;
    }
  }
  EXPECT_GT(queued_runs, 30) << "the property needs runs where jobs queue";
}

}  // namespace
}  // namespace gpumux
