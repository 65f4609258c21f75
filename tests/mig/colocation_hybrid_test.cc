// Measured co-location speeds (models/colocation_speed.h) and MIG: the hybrids use them on a
// GPU with MIG off (as their inner model), never inside an instance (a pair there shares a
// slice, not the whole GPU it was measured on); the MIG and other models never; and the rate
// path stays allocation-free with measured pairs, standalone and inside the hybrids.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/registry.h"
#include "tests/mig/allocation_counter.h"
#include "tests/mig/mig_test_util.h"

namespace gpumux {
namespace {

using mig_test::device;
using json = nlohmann::json;

std::unique_ptr<SharingModel> make_colocation_hybrid_model(const std::string& name,
                                                           const json& params) {
  JsonObject o(params, "s.json", "/sharing/params");
  return make_sharing_model(name, o, "s.json#/sharing/model");
}

// "a" beside "b" 0.5, "b" beside "a" 0.8, measured on `on`.
std::vector<JobSpec> measured_pair(const std::string& on) {
  std::vector<JobSpec> jobs;
  const std::vector<std::tuple<const char*, const char*, double>> pairs = {{"a", "b", 0.5},
                                                                           {"b", "a", 0.8}};
  for (const auto& [name, partner, speed] : pairs) {
    auto facts = std::make_shared<WorkloadFacts>();
    facts->name = name;
    WorkloadDeviceFacts d;
    d.device = on;
    d.colocation = {{partner, speed}};
    facts->devices = {d};
    JobSpec j = mig_test::job(4000, 0.6, 0.8);
    j.kernel_length = Time::from_us(1000);
    j.workload = name;
    j.workload_facts = facts;
    jobs.push_back(j);
  }
  return jobs;
}

struct Computed {
  std::vector<double> rates;
  GpuLoad load;
};

// Offers each job to the GPU in turn (the slot the model picks), then computes the rates.
Computed offer_and_rate(const SharingModel& m, const DeviceProfile& d,
                        const std::vector<JobSpec>& jobs) {
  std::vector<const JobSpec*> residents;
  std::vector<MemoryMiB> memory;
  std::vector<int> slots;
  MemoryMiB used;
  for (const JobSpec& j : jobs) {
    const GpuView v{d, residents, used, memory, 0, slots};
    EXPECT_TRUE(m.admits(v, j));
    slots.push_back(m.slot_layout()->choose_slot(v, j));
    residents.push_back(&j);
    memory.push_back(j.memory);
    used += j.memory;
  }
  Computed c{std::vector<double>(jobs.size(), 0.0), GpuLoad{}};
  m.compute_rates(GpuView{d, residents, used, memory, 0, slots}, c.rates, c.load);
  return c;
}

std::vector<JobSpec> without_workloads(std::vector<JobSpec> jobs) {
  for (JobSpec& j : jobs) j.workload_facts.reset();
  return jobs;
}

TEST(ColocationHybrid, WithMigOffTheHybridUsesThePairSpeeds) {
  const DeviceProfile& v100 = device("V100M16");  // no MIG: the inner model on the whole GPU
  for (const char* name : {"mig+timeslice", "mig+mps"}) {
    const auto m = make_colocation_hybrid_model(name, {{"layout", {"3g.20gb", "3g.20gb"}}});
    EXPECT_TRUE(m->uses_colocation_speeds()) << name;
    const Computed c = offer_and_rate(*m, v100, measured_pair("V100M16"));
    EXPECT_DOUBLE_EQ(c.rates[0], 0.5) << name;
    EXPECT_DOUBLE_EQ(c.rates[1], 0.8) << name;
    EXPECT_EQ(c.load.measured_pair, 3) << name;
  }
}

TEST(ColocationHybrid, InsideAnInstanceThePairSpeedsDoNotApply) {
  // Both jobs in one 3g.20gb instance of an A100-40GB whose pair speeds were measured on the
  // whole A100-40GB: the hybrid's rates, exactly as without the catalogue.
  const DeviceProfile& a100 = device("A100-40GB");
  for (const char* name : {"mig+timeslice", "mig+mps"}) {
    const auto m = make_colocation_hybrid_model(
        name, {{"layout", {"3g.20gb", "3g.20gb"}}, {"instance_choice", "pack"}});
    m->check_device(a100);
    const std::vector<JobSpec> jobs = measured_pair("A100-40GB");
    const Computed c = offer_and_rate(*m, a100, jobs);
    const Computed model = offer_and_rate(*m, a100, without_workloads(jobs));
    EXPECT_EQ(c.rates, model.rates) << name;
    EXPECT_NE(c.rates[0], 0.5) << name;
    EXPECT_EQ(c.load.measured_pair, 0) << name;
  }
}

TEST(ColocationHybrid, ModelsWithoutWholeGpuPairsNeverUseThem) {
  EXPECT_FALSE(make_colocation_hybrid_model("exclusive", json::object())->uses_colocation_speeds());
  EXPECT_FALSE(make_colocation_hybrid_model("mig", {{"layout", {"3g.20gb", "3g.20gb"}}})
                   ->uses_colocation_speeds());
  EXPECT_FALSE(
      make_colocation_hybrid_model("fractional", json::object())->uses_colocation_speeds());
}

TEST(ColocationHybrid, MeasuredPairRatesDoNotAllocate) {
  const DeviceProfile& v100 = device("V100M16");
  const std::vector<JobSpec> jobs = measured_pair("V100M16");
  std::vector<const JobSpec*> residents = {&jobs[0], &jobs[1]};
  const std::vector<MemoryMiB> memory = {jobs[0].memory, jobs[1].memory};
  const std::vector<int> slots = {0, 0};
  const GpuView v{v100, residents, jobs[0].memory + jobs[1].memory, memory, 0, slots};
  const json none = json::object();
  const json halves = {{"layout", {"3g.20gb", "3g.20gb"}}};
  const std::vector<std::pair<const char*, const json*>> models = {
      {"timeslice", &none}, {"mps", &none}, {"mig+timeslice", &halves}, {"mig+mps", &halves}};
  for (const auto& [name, params] : models) {
    const auto m = make_colocation_hybrid_model(name, *params);
    std::vector<double> rates(2, 0.0);
    GpuLoad load;
    m->compute_rates(v, rates, load);  // warm
    mig_test::arm_allocation_counter();
    for (int i = 0; i < 50; ++i) m->compute_rates(v, rates, load);
    EXPECT_EQ(mig_test::disarm_allocation_counter(), 0) << name;
    EXPECT_DOUBLE_EQ(rates[1], 0.8) << name;
  }
}

}  // namespace
}  // namespace gpumux
