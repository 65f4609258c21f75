// Measured co-location speeds of the workload catalogue (models/colocation_speed.h) under the
// time-slicing and MPS models: a GPU holding exactly two jobs whose pair the catalogue measured
// on its device type runs each at its measured speed (per direction, at most 1), everything else
// at the model's rates; a measured 0 keeps the model's rate and is flagged; the memo never hands
// a measured rate to an unmeasured pair; finish times through the engine are the hand-computed
// ones.
#include "models/colocation_speed.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/device_registry.h"
#include "models/registry.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using json = nlohmann::json;

const DeviceProfile& builtin_device(const std::string& name) {
  static const DeviceRegistry registry = DeviceRegistry::with_builtins();
  return registry.get(name, "test");
}

std::unique_ptr<SharingModel> make_speed_model(const std::string& name,
                                               const json& params = json::object()) {
  JsonObject o(params, "s.json", "/sharing/params");
  return make_sharing_model(name, o, "s.json#/sharing/model");
}

// A workload measured on `device` beside the named partners.
std::shared_ptr<const WorkloadFacts> workload(const std::string& name, const std::string& on,
                                              std::vector<MeasuredSpeed> colocation) {
  auto facts = std::make_shared<WorkloadFacts>();
  facts->name = name;
  WorkloadDeviceFacts d;
  d.device = on;
  d.colocation = std::move(colocation);
  facts->devices = {d};
  return facts;
}

// A 100 s single-GPU job of `facts` (null: no workload), 4 GiB, duty cycle 0.6.
JobSpec speed_job(const std::string& id, std::shared_ptr<const WorkloadFacts> facts,
                  double submit_s = 0.0) {
  JobSpec j = testing::job(id, submit_s, 1, 100.0);
  j.memory = MemoryMiB(4096);
  j.sm_util = 0.6;
  j.sm_share = 0.8;
  j.kernel_length = Time::from_us(1000);
  if (facts) {
    j.workload = facts->name;
    j.workload_facts = std::move(facts);
  }
  return j;
}

// "a" beside "b" runs at 0.5 and "b" beside "a" at 0.8 on V100M16 (Gavel's V100).
struct Pair {
  std::shared_ptr<const WorkloadFacts> a = workload("a", "V100M16", {{"b", 0.5}});
  std::shared_ptr<const WorkloadFacts> b = workload("b", "V100M16", {{"a", 0.8}});
};

struct Rates {
  std::vector<double> rates;
  GpuLoad load;
};

Rates rates_of(const SharingModel& m, const DeviceProfile& d, const std::vector<JobSpec>& jobs) {
  std::vector<const JobSpec*> residents;
  MemoryMiB used;
  for (const JobSpec& j : jobs) {
    residents.push_back(&j);
    used += j.memory;
  }
  Rates r{std::vector<double>(jobs.size(), 0.0), GpuLoad{}};
  m.compute_rates(GpuView{d, residents, used}, r.rates, r.load);
  return r;
}

// The same jobs with their workloads removed: what the model alone says.
std::vector<JobSpec> without_workloads(std::vector<JobSpec> jobs) {
  for (JobSpec& j : jobs) {
    j.workload.clear();
    j.workload_facts.reset();
  }
  return jobs;
}

const char* const kModels[] = {"timeslice", "mps"};

TEST(ColocationSpeed, AMeasuredPairRunsAtItsSpeedsInEitherOrder) {
  const Pair p;
  const DeviceProfile& v100 = builtin_device("V100M16");
  for (const char* name : kModels) {
    const auto m = make_speed_model(name);
    EXPECT_TRUE(m->uses_colocation_speeds());
    const std::vector<JobSpec> ab = {speed_job("1", p.a), speed_job("2", p.b)};
    const Rates measured = rates_of(*m, v100, ab);
    EXPECT_DOUBLE_EQ(measured.rates[0], 0.5) << name;
    EXPECT_DOUBLE_EQ(measured.rates[1], 0.8) << name;
    EXPECT_EQ(measured.load.measured_pair, 3) << name;
    EXPECT_EQ(measured.load.unrunnable_pair, 0) << name;
    // Precedence: the measurement, not the model, which says otherwise for these inputs.
    const Rates model = rates_of(*m, v100, without_workloads(ab));
    EXPECT_NE(model.rates[0], 0.5) << name;
    EXPECT_NE(model.rates[1], 0.8) << name;
    EXPECT_EQ(model.load.measured_pair, 0) << name;
    // The GPU's load stays the model's.
    EXPECT_EQ(measured.load.useful_busy, model.load.useful_busy) << name;
    EXPECT_EQ(measured.load.overhead, model.load.overhead) << name;
    // Placed the other way round: each job keeps its own direction's speed.
    const Rates ba = rates_of(*m, v100, {speed_job("2", p.b), speed_job("1", p.a)});
    EXPECT_DOUBLE_EQ(ba.rates[0], 0.8) << name;
    EXPECT_DOUBLE_EQ(ba.rates[1], 0.5) << name;
  }
}

TEST(ColocationSpeed, AMissingDirectionKeepsTheModelsRate) {
  // "b" has no speed measured beside "a": only "a" runs at its measurement.
  const auto a = workload("a", "V100M16", {{"b", 0.5}});
  const auto b = workload("b", "V100M16", {});
  const DeviceProfile& v100 = builtin_device("V100M16");
  for (const char* name : kModels) {
    const auto m = make_speed_model(name);
    const std::vector<JobSpec> jobs = {speed_job("1", a), speed_job("2", b)};
    const Rates r = rates_of(*m, v100, jobs);
    const Rates model = rates_of(*m, v100, without_workloads(jobs));
    EXPECT_DOUBLE_EQ(r.rates[0], 0.5) << name;
    EXPECT_EQ(r.rates[1], model.rates[1]) << name;
    EXPECT_EQ(r.load.measured_pair, 1) << name;
    // A partner without a workload: nothing is measured.
    const std::vector<JobSpec> unnamed = {speed_job("1", a), speed_job("2", nullptr)};
    const Rates u = rates_of(*m, v100, unnamed);
    EXPECT_EQ(u.rates, rates_of(*m, v100, without_workloads(unnamed)).rates) << name;
    EXPECT_EQ(u.load.measured_pair, 0) << name;
  }
}

TEST(ColocationSpeed, ThreeOrMoreJobsAndAJobAloneRunAtTheModelsRates) {
  const auto a = workload("a", "V100M16", {{"a", 0.5}, {"b", 0.5}});
  const auto b = workload("b", "V100M16", {{"a", 0.8}, {"b", 0.8}});
  const DeviceProfile& v100 = builtin_device("V100M16");
  for (const char* name : kModels) {
    const auto m = make_speed_model(name);
    const std::vector<JobSpec> three = {speed_job("1", a), speed_job("2", b), speed_job("3", a)};
    const Rates r = rates_of(*m, v100, three);
    EXPECT_EQ(r.rates, rates_of(*m, v100, without_workloads(three)).rates) << name;
    EXPECT_EQ(r.load.measured_pair, 0) << name;
    const Rates alone = rates_of(*m, v100, {speed_job("1", a)});
    EXPECT_EQ(alone.rates[0], 1.0) << name;
    EXPECT_EQ(alone.load.measured_pair, 0) << name;
  }
}

TEST(ColocationSpeed, OnlyOnTheDeviceTypeItWasMeasuredOn) {
  const Pair p;
  for (const char* name : kModels) {
    const auto m = make_speed_model(name);
    const std::vector<JobSpec> jobs = {speed_job("1", p.a), speed_job("2", p.b)};
    for (const char* other : {"A100-40GB", "V100M32"}) {
      const DeviceProfile& d = builtin_device(other);
      const Rates r = rates_of(*m, d, jobs);
      EXPECT_EQ(r.rates, rates_of(*m, d, without_workloads(jobs)).rates) << name << " " << other;
      EXPECT_EQ(r.load.measured_pair, 0) << name << " " << other;
    }
    EXPECT_EQ(measured_colocation_speed(jobs[0], jobs[1], builtin_device("A100-40GB")), nullptr);
    ASSERT_NE(measured_colocation_speed(jobs[0], jobs[1], builtin_device("V100M16")), nullptr);
  }
}

TEST(ColocationSpeed, ZeroMeansThePairCouldNotRunAndKeepsTheModelsRate) {
  // Gavel's [0, 0]: the pair could not run together. Above 1 (noise): used as 1.
  const auto a = workload("a", "V100M16", {{"b", 0.0}});
  const auto b = workload("b", "V100M16", {{"a", 1.04}});
  const DeviceProfile& v100 = builtin_device("V100M16");
  for (const char* name : kModels) {
    const auto m = make_speed_model(name);
    const std::vector<JobSpec> jobs = {speed_job("1", a), speed_job("2", b)};
    const Rates r = rates_of(*m, v100, jobs);
    const Rates model = rates_of(*m, v100, without_workloads(jobs));
    EXPECT_EQ(r.rates[0], model.rates[0]) << name;
    EXPECT_GT(r.rates[0], 0.0) << name;
    EXPECT_EQ(r.rates[1], 1.0) << name;
    EXPECT_EQ(r.load.unrunnable_pair, 1) << name;
    EXPECT_EQ(r.load.measured_pair, 2) << name;
  }
}

TEST(ColocationSpeed, TheMemoNeverHandsAMeasuredRateToAnUnmeasuredPair) {
  // Equal rate inputs (duty cycle, kernel, SM share): the memo's key is the same; the workloads
  // decide after it.
  const Pair p;
  const DeviceProfile& v100 = builtin_device("V100M16");
  for (const char* name : kModels) {
    const auto m = make_speed_model(name);
    const std::vector<JobSpec> named = {speed_job("1", p.a), speed_job("2", p.b)};
    const std::vector<JobSpec> plain = without_workloads(named);
    const Rates first = rates_of(*m, v100, plain);
    const Rates measured = rates_of(*m, v100, named);
    const Rates again = rates_of(*m, v100, plain);
    EXPECT_EQ(again.rates, first.rates) << name;
    EXPECT_EQ(again.load.measured_pair, 0) << name;
    EXPECT_DOUBLE_EQ(measured.rates[0], 0.5) << name;
    EXPECT_DOUBLE_EQ(rates_of(*m, v100, named).rates[1], 0.8) << name;
  }
}

struct Finishes : EngineObserver {
  std::map<std::string, double> at;
  void on_job_finished(Time now, const ActiveJob& j) override { at[j.spec.id] = now.seconds(); }
};

Finishes run(const SharingModel& model, const std::vector<JobSpec>& jobs) {
  Cluster cluster({builtin_device("V100M16")}, {NodeSpec{"n0", 0, 1, 0, true}});
  model.check_device(builtin_device("V100M16"));
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  testing::ListSource source(jobs);
  testing::CheckedEngine engine(cluster, model, scheduler, source);
  Finishes f;
  engine.add_observer(&f);
  engine.run();
  return f;
}

TEST(ColocationSpeed, TwoJobsFinishWhenTheirMeasuredSpeedsSay) {
  // Two 100 s jobs from 0 s on one V100: "b" at 0.8 ends at 100 / 0.8 = 125 s; "a" at 0.5 has
  // done 62.5 s by then and runs its last 37.5 s alone at 1: 162.5 s.
  const Pair p;
  for (const char* name : kModels) {
    const auto m = make_speed_model(name);
    const Finishes f = run(*m, {speed_job("a1", p.a), speed_job("b1", p.b)});
    EXPECT_DOUBLE_EQ(f.at.at("b1"), 125.0) << name;
    EXPECT_DOUBLE_EQ(f.at.at("a1"), 162.5) << name;
    // A third job arriving at 50 s makes three: the model's rates for all until one leaves.
    const Finishes three =
        run(*m, {speed_job("a1", p.a), speed_job("b1", p.b), speed_job("c", p.a, 50.0)});
    EXPECT_GT(three.at.at("b1"), 125.0) << name;
  }
}

}  // namespace
}  // namespace gpumux
