#include "models/exclusive_model.h"

#include <gtest/gtest.h>

#include <vector>

#include "models/device_registry.h"

namespace gpumux {
namespace {

class ExclusiveModelTest : public ::testing::Test {
 protected:
  ExclusiveModelTest() : registry_(DeviceRegistry::with_builtins()) {}

  const DeviceProfile& a100() { return registry_.get("A100-40GB", "test"); }

  static JobSpec job(std::int64_t memory_mib, double sm_util = 1.0) {
    JobSpec j;
    j.id = "j";
    j.runtime = Time::from_seconds(10);
    j.memory = MemoryMiB(memory_mib);
    j.sm_util = sm_util;
    return j;
  }

  static MemoryMiB used(const std::vector<const JobSpec*>& residents) {
    MemoryMiB m;
    for (const auto* r : residents) m += r->memory;
    return m;
  }

  DeviceRegistry registry_;
  ExclusiveModel model_;
};

TEST_F(ExclusiveModelTest, NameAndContract) {
  EXPECT_EQ(model_.name(), "exclusive");
  EXPECT_TRUE(model_.requires_empty_gpu());
  EXPECT_TRUE(model_.parameters().empty());
}

TEST_F(ExclusiveModelTest, AdmitsAJobThatFitsOnAnEmptyGpu) {
  const std::vector<const JobSpec*> none;
  const GpuView empty{a100(), none, MemoryMiB()};
  EXPECT_TRUE(model_.admits(empty, job(0)));
  EXPECT_TRUE(model_.admits(empty, job(1000)));
  EXPECT_TRUE(model_.admits(empty, job(40960)));  // exactly the device's memory
}

TEST_F(ExclusiveModelTest, RejectsAJobLargerThanTheDevice) {
  const std::vector<const JobSpec*> none;
  const GpuView empty{a100(), none, MemoryMiB()};
  EXPECT_FALSE(model_.admits(empty, job(40961)));
  const GpuView v100{registry_.get("V100M16", "test"), none, MemoryMiB()};
  EXPECT_FALSE(model_.admits(v100, job(20000)));
  EXPECT_TRUE(model_.admits(v100, job(16384)));
}

TEST_F(ExclusiveModelTest, NeverSharesAGpu) {
  const JobSpec tiny = job(1, 0.01);
  const std::vector<const JobSpec*> one = {&tiny};
  const GpuView busy{a100(), one, used(one)};
  EXPECT_FALSE(model_.admits(busy, job(1, 0.01)));
  EXPECT_FALSE(model_.admits(busy, job(0)));
}

TEST_F(ExclusiveModelTest, RateOneAndUsefulBusyIsTheDutyCycle) {
  for (double util : {1.0, 0.4, 0.05}) {
    const JobSpec j = job(1000, util);
    const std::vector<const JobSpec*> one = {&j};
    const GpuView view{a100(), one, used(one)};
    std::vector<double> rates(1, -1.0);
    GpuLoad load{-1.0, -1.0};
    model_.compute_rates(view, rates, load);
    EXPECT_EQ(rates[0], 1.0) << util;
    EXPECT_DOUBLE_EQ(load.useful_busy, util);
    EXPECT_EQ(load.overhead, 0.0);
  }
}

TEST_F(ExclusiveModelTest, UsefulBusyNeverExceedsOne) {
  JobSpec j = job(1000);
  j.sm_util = 1.5;  // not a valid trace value, but the load must stay a fraction
  const std::vector<const JobSpec*> one = {&j};
  const GpuView view{a100(), one, used(one)};
  std::vector<double> rates(1);
  GpuLoad load;
  model_.compute_rates(view, rates, load);
  EXPECT_LE(load.useful_busy, 1.0);
}

}  // namespace
}  // namespace gpumux
