// Queues that look at one job per request kind (sim/scheduling/greedy_queue.h) and share-aware
// placement that remembers the kinds it found no node for (sim/placement/refused_kinds.h) must
// start the same jobs, on the same GPUs, at the same times and in the same order as the plain
// pass that asks every queued job. Property: random saturated workloads on small clusters with
// node CPUs, run once under the fractional model and once under the same model with admission
// by key turned off (which turns both off), under each queue and several placements. Plus the
// change log (sim/state/node_change_log.h) on its own.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/metrics/queue_reason_metrics.h"
#include "models/device_registry.h"
#include "models/fractional/fractional_model.h"
#include "sim/base/json_fields.h"
#include "sim/engine/engine.h"
#include "sim/placement/refused_kinds.h"
#include "sim/placement/share_placement.h"
#include "sim/placement/share_view.h"
#include "sim/scheduling/scheduler.h"
#include "sim/state/node_change_log.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

const DeviceProfile& a100() {
  static const DeviceRegistry registry = DeviceRegistry::with_builtins();
  return registry.get("A100-40GB", "test");
}

nlohmann::json fractional_params() { return {{"max_jobs_per_gpu", 3}}; }

// The fractional model with admission by key off: every queued job is asked alone, and the
// placement looks at every node for every job.
class PlainFractional : public FractionalModel {
 public:
  using FractionalModel::FractionalModel;
  bool admission_by_key() const override { return false; }
};

template <class Model>
std::unique_ptr<SharingModel> fractional() {
  nlohmann::json params = fractional_params();
  JsonObject o(params, "s.json", "/sharing/params");
  return std::make_unique<Model>(o);
}

// Six nodes of 4 GPUs (16 cores each) and one of 2 GPUs without declared cores.
Cluster small_cluster() {
  std::vector<NodeSpec> specs;
  for (int n = 0; n < 6; ++n)
    specs.push_back(NodeSpec{"n" + std::to_string(n), 0, 4, 0, true, 16.0});
  specs.push_back(NodeSpec{"n6", 0, 2, 0, true, std::nullopt});
  return Cluster({a100()}, specs);
}

// A saturated workload of few kinds: shares of one GPU, whole GPUs, gangs (one larger than a
// node), CPU-only jobs; cores and memory quotas drawn from short lists.
std::vector<JobSpec> workload(std::uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  auto pick = [&](auto const& list) { return list[rng() % list.size()]; };
  const std::vector<int> gpus = {0, 1, 1, 1, 1, 1, 2, 4, 6};
  const std::vector<int> milli = {150, 250, 500, 700, 1000};
  const std::vector<double> cpus = {0.0, 1.0, 2.0, 6.0};
  const std::vector<std::int64_t> memory = {0, 8000, 20000};
  std::vector<JobSpec> jobs;
  double t = 0.0;
  for (int i = 0; i < n; ++i) {
    t += static_cast<double>(rng() % 2000) / 1000.0;
    JobSpec j = testing::job("j" + std::to_string(i), t, pick(gpus),
                             5.0 + static_cast<double>(rng() % 200));
    j.cpus = pick(cpus);
    if (j.gpus == 0) j.cpus += 1.0;
    j.gpu_milli = j.gpus == 1 ? pick(milli) : 1000;
    if (j.gpu_milli < 1000) j.sm_share = j.sm_util = j.gpu_milli / 1000.0;
    j.memory = MemoryMiB(pick(memory));
    jobs.push_back(std::move(j));
  }
  return jobs;
}

struct StartLog : EngineObserver {
  std::vector<std::tuple<std::int64_t, std::string, std::vector<GpuIndex>>> starts;
  void on_job_started(Time now, const ActiveJob& j) override {
    starts.emplace_back(now.us(), j.spec.id, j.gpus);
  }
};

struct Result {
  StartLog log;
  QueueReasonMetrics reasons;
};

void run_kind_queue(Result& out, const SharingModel& model, const std::vector<JobSpec>& jobs,
                    std::string_view queue, packing::Policy policy) {
  Cluster cluster = small_cluster();
  JobKindCounts kinds;
  for (const JobSpec& j : jobs) kinds.add(j);
  ShareView view(cluster, kinds, "s.json");
  Scheduler scheduler(queue, std::make_unique<SharePlacement>("p", policy, view, 11), 8);
  testing::ListSource source(jobs);
  testing::CheckedEngine engine(cluster, model, scheduler, source);
  engine.add_observer(&view);
  engine.add_observer(&out.reasons);
  engine.add_observer(&out.log);
  engine.run();
}

TEST(KindQueue, SameStartsAsThePlainPassOnRandomWorkloads) {
  const auto by_key = fractional<FractionalModel>();
  const auto plain = fractional<PlainFractional>();
  ASSERT_TRUE(by_key->admission_by_key());
  ASSERT_FALSE(plain->admission_by_key());
  std::size_t compared = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const std::vector<JobSpec> jobs = workload(seed, 250);
    for (std::string_view queue : {"greedy", "fifo-backfill", "fifo"}) {
      for (packing::Policy policy : {packing::Policy::kFgd, packing::Policy::kBestFit,
                                     packing::Policy::kRandom, packing::Policy::kGpuPacking}) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " " + std::string(queue) + " " +
                     std::string(packing::policy_name(policy)));
        Result a, b;
        run_kind_queue(a, *by_key, jobs, queue, policy);
        run_kind_queue(b, *plain, jobs, queue, policy);
        ASSERT_EQ(a.log.starts.size(), jobs.size());
        ASSERT_EQ(a.log.starts, b.log.starts);
        for (std::size_t r = 0; r < kQueueReasonCount; ++r) {
          EXPECT_EQ(a.reasons.job_s(static_cast<QueueReason>(r)),
                    b.reasons.job_s(static_cast<QueueReason>(r)));
        }
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 6u * 3u * 4u);
}

// The workloads above do saturate: jobs wait, and some start ahead of an earlier arrival (greedy
// passes over a job that does not fit), so the property compares passes that skip.
TEST(KindQueue, TheRandomWorkloadsQueueAndOvertake) {
  const auto by_key = fractional<FractionalModel>();
  const std::vector<JobSpec> jobs = workload(1, 250);
  Result a;
  run_kind_queue(a, *by_key, jobs, "greedy", packing::Policy::kFgd);
  EXPECT_GT(a.reasons.total_job_s(), 1000.0);
  bool overtaken = false;
  for (std::size_t i = 1; i < a.log.starts.size(); ++i) {
    const auto index = [](const std::string& id) { return std::stoi(id.substr(1)); };
    overtaken =
        overtaken || index(std::get<1>(a.log.starts[i])) < index(std::get<1>(a.log.starts[i - 1]));
  }
  EXPECT_TRUE(overtaken);
}

TEST(NodeChangeLog, VisitsEachChangedNodeOnceSinceAPosition) {
  NodeChangeLog log;
  log.reset(5);
  log.touch(1);
  const std::uint64_t at = log.now();
  log.touch(3);
  log.touch(1);
  log.touch(3);
  log.touch(4);
  EXPECT_EQ(log.touches_since(at), 4u);
  std::vector<NodeIndex> seen;
  ASSERT_TRUE(log.visit_since(at, [&](NodeIndex n) {
    seen.push_back(n);
    return true;
  }));
  EXPECT_EQ(seen, (std::vector<NodeIndex>{1, 3, 4}));  // by last touch
  seen.clear();
  ASSERT_TRUE(log.visit_since(log.now(), [&](NodeIndex n) {
    seen.push_back(n);
    return true;
  }));
  EXPECT_TRUE(seen.empty());
}

TEST(NodeChangeLog, AnOldPositionIsUnknownOnceTheLogDropsIt) {
  NodeChangeLog log;
  log.reset(2);
  const std::uint64_t start = log.now();
  for (int i = 0; i < 20000; ++i) log.touch(static_cast<NodeIndex>(i % 2));
  EXPECT_EQ(log.touches_since(start), SIZE_MAX);
  bool visited = false;
  EXPECT_FALSE(log.visit_since(start, [&](NodeIndex) { return visited = true; }));
  EXPECT_FALSE(visited);
  // A recent position is still held.
  const std::uint64_t recent = log.now();
  log.touch(0);
  EXPECT_EQ(log.touches_since(recent), 1u);
}

TEST(RefusedKinds, StillRefusedOnlyWhileNoChangedNodeTakesTheKind) {
  NodeChangeLog log;
  log.reset(4);
  RefusedKinds refused;
  const RequestKind kind{1, 500, 100, 0};
  int asked = 0;
  auto none = [&](NodeIndex) { return ++asked, false; };
  EXPECT_FALSE(refused.still_refused(kind, log, 4, none));  // never refused
  refused.refused(kind, log.now());
  EXPECT_TRUE(refused.still_refused(kind, log, 4, none));
  EXPECT_EQ(asked, 0);  // nothing changed: nothing to ask
  log.touch(2);
  EXPECT_TRUE(refused.still_refused(kind, log, 4, none));
  EXPECT_EQ(asked, 1);
  EXPECT_TRUE(refused.still_refused(kind, log, 4, none));  // the refusal moved past the touch
  EXPECT_EQ(asked, 1);
  log.touch(3);
  EXPECT_FALSE(refused.still_refused(kind, log, 4, [](NodeIndex n) { return n == 3; }));
  // Another kind is not refused by this one's refusal.
  EXPECT_FALSE(refused.still_refused(RequestKind{1, 250, 100, 0}, log, 4, none));
  // More than 8 x `nodes` touches since: a whole look is cheaper, so no answer.
  for (NodeIndex n = 0; n < 32; ++n) log.touch(n % 4);
  EXPECT_FALSE(refused.still_refused(kind, log, 4, none));
}

}  // namespace
}  // namespace gpumux
