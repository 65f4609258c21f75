// Faults through the engine under every sharing model, built from the registry as scenarios
// build them: out of memory kills the job whose memory grew, never a neighbour whose memory did
// not change (the default everywhere); a fatal fault kills what the model's blast radius says
// (MPS: the whole server; elsewhere the faulting job alone) and MPS blocks the GPU for the
// teardown and the server restart.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "models/device_registry.h"
#include "models/mps/mps_model.h"
#include "models/registry.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using json = nlohmann::json;

const DeviceProfile& a100() {
  static const DeviceRegistry registry = DeviceRegistry::with_builtins();
  return registry.get("A100-40GB", "test");
}

std::unique_ptr<SharingModel> make_faults_model(const std::string& name, const json& params) {
  JsonObject o(params, "s.json", "/sharing/params");
  return make_sharing_model(name, o, "s.json#/sharing/model");
}

struct Case {
  const char* model;
  json params;
  bool whole_server_dies;  // blast radius of a fatal fault
};

// The models whose co-located jobs share memory, with admission that does not check it, so that
// a growing job can overfill the GPU (or its MIG instance).
std::vector<Case> shared_memory_models() {
  const json one_instance = {{"layout", {"7g.40gb"}}, {"inner", {{"admission", "replicas"}}}};
  return {{"timeslice", {{"admission", "replicas"}}, false},
          {"mps", {{"admission", "replicas"}}, true},
          {"mig+mps", one_instance, true},
          {"mig+timeslice", one_instance, false}};
}

struct Recorder : EngineObserver {
  std::map<std::string, std::vector<double>> kills, starts;
  std::map<std::string, double> finish;
  std::vector<std::pair<double, std::size_t>> fatal;
  void on_job_started(Time now, const ActiveJob& j) override {
    starts[j.spec.id].push_back(now.seconds());
  }
  void on_job_finished(Time now, const ActiveJob& j) override { finish[j.spec.id] = now.seconds(); }
  void on_job_killed(Time now, const ActiveJob& j, double) override {
    kills[j.spec.id].push_back(now.seconds());
  }
  void on_fatal_fault(Time now, GpuIndex, std::size_t n) override {
    fatal.emplace_back(now.seconds(), n);
  }
};

Recorder run_with_faults(const SharingModel& model, std::vector<JobSpec> jobs,
                         EngineOptions options) {
  Cluster cluster({a100()}, {NodeSpec{"n0", 0, 1, 0, true}});
  model.check_device(a100());
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  testing::ListSource source(std::move(jobs));
  testing::CheckedEngine engine(cluster, model, scheduler, source, options);
  Recorder r;
  engine.add_observer(&r);
  engine.run();
  return r;
}

JobSpec spec(const std::string& id, std::int64_t memory_mib, double runtime_s) {
  JobSpec j = testing::job(id, 0, 1, runtime_s);
  j.memory = MemoryMiB(memory_mib);
  j.sm_util = 0.5;
  j.sm_share = 0.5;
  return j;
}

TEST(FaultsAcrossModels, OutOfMemoryKillsTheJobWhoseMemoryGrewNotItsNeighbour) {
  for (const Case& c : shared_memory_models()) {
    const auto model = make_faults_model(c.model, c.params);
    // a (placed first) uses 15000 MiB until 10 s of work, then 30000; b holds 20000. Together
    // they fit the GPU and its 7g instance (35000 MiB) until a grows (50000).
    JobSpec a = spec("a", 30000, 100);
    a.memory_profile = std::make_shared<const MemoryProfile>(
        "step", std::vector<MemoryProfile::Step>{{0, 0.5}, {10e6, 1.0}});
    const Recorder r = run_with_faults(*model, {a, spec("b", 20000, 100)},
                                       EngineOptions{Time::infinity(), 0, Time::from_seconds(10)});
    EXPECT_EQ(r.kills.count("a") ? r.kills.at("a").size() : 0u, 1u) << c.model;
    EXPECT_FALSE(r.kills.count("b")) << c.model << ": b's memory never changed";
    EXPECT_TRUE(r.finish.count("b")) << c.model;
  }
}

TEST(FaultsAcrossModels, OomAllStillKillsEveryClient) {
  const auto model = make_faults_model("mps", {{"admission", "replicas"}, {"oom", "all"}});
  JobSpec a = spec("a", 30000, 100);
  a.memory_profile = std::make_shared<const MemoryProfile>(
      "step", std::vector<MemoryProfile::Step>{{0, 0.5}, {10e6, 1.0}});
  const Recorder r = run_with_faults(*model, {a, spec("b", 20000, 100)},
                                     EngineOptions{Time::infinity(), 0, Time::from_seconds(10)});
  ASSERT_TRUE(r.kills.count("a") && r.kills.count("b"));
  EXPECT_EQ(r.kills.at("a"), r.kills.at("b"));
}

TEST(FaultsAcrossModels, AFatalFaultKillsTheModelsBlastRadius) {
  std::vector<Case> cases = shared_memory_models();
  cases.push_back({"exclusive", json::object(), false});
  cases.push_back({"mig", {{"layout", {"3g.20gb", "3g.20gb"}}}, false});
  for (const Case& c : cases) {
    const auto model = make_faults_model(c.model, c.params);
    EngineOptions o{Time::infinity(), 1000, Time::from_seconds(1)};
    o.fatal_faults_per_gpu_hour = 3.0;
    o.fault_seed = 17;
    std::vector<JobSpec> jobs{spec("a", 4000, 3600), spec("b", 4000, 3600)};
    for (JobSpec& j : jobs) j.checkpoint_interval = Time::from_seconds(60);
    const Recorder r = run_with_faults(*model, jobs, o);
    ASSERT_FALSE(r.fatal.empty()) << c.model;
    const auto [first, killed] = r.fatal.front();
    // Under exclusive the two jobs run one after the other: a fault meets one job.
    const bool together = std::string(c.model) != "exclusive";
    EXPECT_EQ(killed, c.whole_server_dies && together ? 2u : 1u) << c.model;
    // The next start after the first fault: after the retry delay (1 s), or, when the MPS
    // server was torn down, once the teardown and the restart are over.
    double next = 1e300;
    for (const auto& [id, times] : r.starts) {
      for (double t : times) {
        if (t > first) next = std::min(next, t);
      }
    }
    const double wait =
        c.whole_server_dies ? kDefaultMpsFaultTeardownS + kDefaultMpsServerRestartS : 1.0;
    if (together) {
      EXPECT_NEAR(next, first + wait, 1e-6) << c.model;
    }
    EXPECT_EQ(r.finish.size(), 2u) << c.model;
  }
}

}  // namespace
}  // namespace gpumux
