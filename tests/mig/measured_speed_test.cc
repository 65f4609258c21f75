// Measured MIG speeds (models/mig/measured_speed.h): a job whose workload has a measured speed
// on the device in the instance's profile runs at it; anywhere else at the speed model's.
#include "models/mig/measured_speed.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "models/mig/layout.h"
#include "models/mig/mig_model.h"
#include "tests/mig/allocation_counter.h"
#include "tests/mig/mig_test_util.h"

namespace gpumux {
namespace {

using mig_test::device;
using mig_test::job;

// A job of a workload measured on A100-40GB in 1g.5gb (0.58) and 3g.20gb (1.0035: noise).
JobSpec measured_job() {
  auto facts = std::make_shared<WorkloadFacts>();
  facts->name = "resnet-bs64";
  WorkloadDeviceFacts a100;
  a100.device = "A100-40GB";
  a100.mig_speeds = {{"1g.5gb", 0.58}, {"3g.20gb", 1.0035}};
  facts->devices = {a100};
  JobSpec j = job(4000, 0.4156, 1.0);
  j.mem_bw_util = 0.04;
  j.workload = facts->name;
  j.workload_facts = facts;
  return j;
}

TEST(MeasuredMigSpeed, MeasuredWhereTheCatalogueHasItTheModelElsewhere) {
  const JobSpec j = measured_job();
  JobSpec unmeasured = j;
  unmeasured.workload_facts.reset();
  const DeviceProfile& a100 = device("A100-40GB");
  const MigSpeedParams params;
  const MigProfile& g1 = *find_mig_profile(a100, "1g.5gb");
  const MigProfile& g2 = *find_mig_profile(a100, "2g.10gb");
  const MigProfile& g3 = *find_mig_profile(a100, "3g.20gb");
  EXPECT_DOUBLE_EQ(mig_job_rate(j, a100, g1, params), 0.58);
  // The fitted model predicts less on 1g.5gb for this workload (the disagreement the catalogue
  // resolves): 0.40 against the measured 0.58.
  EXPECT_LT(mig_instance_rate(j, a100, g1, params), 0.45);
  EXPECT_DOUBLE_EQ(mig_job_rate(j, a100, g3, params), 1.0);  // above 1: used as 1
  EXPECT_DOUBLE_EQ(mig_job_rate(j, a100, g2, params), mig_instance_rate(j, a100, g2, params));
  EXPECT_DOUBLE_EQ(mig_job_rate(unmeasured, a100, g1, params),
                   mig_instance_rate(unmeasured, a100, g1, params));
  // Another device with a profile of the same name: not measured there.
  const DeviceProfile& a30 = device("A30-24GB");
  for (const MigProfile& p : a30.mig_profiles) {
    EXPECT_DOUBLE_EQ(mig_job_rate(j, a30, p, params), mig_instance_rate(j, a30, p, params));
  }
  EXPECT_EQ(measured_mig_speed(j, a100, g2), nullptr);
  ASSERT_NE(measured_mig_speed(j, a100, g1), nullptr);
}

TEST(MeasuredMigSpeed, TheMigModelUsesItWithoutAllocating) {
  const nlohmann::json params = {{"layout", {"4g.20gb", "2g.10gb", "1g.5gb"}}};
  JsonObject o(params, "s.json", "/sharing/params");
  const MigModel m(o);
  const DeviceProfile& a100 = device("A100-40GB");
  // 4,000 MiB: the smallest instance that holds it is the 1g.5gb.
  const JobSpec j = measured_job();
  std::vector<const JobSpec*> residents;
  auto view = [&] {
    MemoryMiB used;
    for (const JobSpec* r : residents) used += r->memory;
    return GpuView{a100, residents, used};
  };
  ASSERT_TRUE(m.admits(view(), j));
  residents.push_back(&j);
  std::vector<double> rates(1, 0.0);
  GpuLoad load;
  const GpuView v = view();
  m.compute_rates(v, rates, load);
  EXPECT_DOUBLE_EQ(rates[0], 0.58);
  mig_test::arm_allocation_counter();
  for (int i = 0; i < 100; ++i) m.compute_rates(v, rates, load);
  EXPECT_EQ(mig_test::disarm_allocation_counter(), 0);
}

}  // namespace
}  // namespace gpumux
