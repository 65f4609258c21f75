// The fractional model: admission by compute shares and memory quotas, out of memory only past
// a job's own quota, and rates derived by hand from the limiter and time-slicing.
#include "models/fractional/fractional_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "models/fractional/limiter.h"
#include "models/registry.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;

DeviceProfile gpu16() {
  DeviceProfile d;
  d.name = "G";
  d.memory = MemoryMiB(16384);
  d.sms = 80;
  return d;
}

JobSpec fractional_job(int milli, double sm_util = 1.0, std::int64_t memory_mib = 1000,
                       std::int64_t kernel_us = 1000) {
  JobSpec j;
  j.gpu_milli = milli;
  j.sm_util = sm_util;
  j.memory = MemoryMiB(memory_mib);
  j.kernel_length = Time::from_us(kernel_us);
  return j;
}

FractionalModel make_fractional_model(nlohmann::json params) {
  JsonObject o(params, "s.json", "/sharing/params");
  return FractionalModel(o);
}

// Rates of `residents` on one 16 GiB GPU.
std::vector<double> fractional_rates_of(const FractionalModel& m,
                                        std::vector<const JobSpec*> residents,
                                        GpuLoad* load_out = nullptr) {
  const DeviceProfile d = gpu16();
  std::vector<double> rates(residents.size());
  GpuLoad load;
  m.compute_rates(GpuView{d, residents, MemoryMiB(0)}, rates, load);
  if (load_out) *load_out = load;
  return rates;
}

TEST(FractionalModel, AdmitsWhileSharesAndQuotasFit) {
  const FractionalModel m = make_fractional_model(nlohmann::json::object());
  const DeviceProfile d = gpu16();
  const JobSpec a = fractional_job(600, 1.0, 8000);
  const JobSpec* on_gpu[] = {&a};
  const GpuView view{d, on_gpu, a.memory};
  EXPECT_TRUE(m.admits(view, fractional_job(400, 1.0, 8000)));   // 1000 milli, 16000 MiB
  EXPECT_FALSE(m.admits(view, fractional_job(401, 1.0, 1000)));  // 1001 milli
  EXPECT_FALSE(m.admits(view, fractional_job(100, 1.0, 9000)));  // 17000 MiB of quotas
  // A quota below the peak is what admission counts.
  JobSpec limited = fractional_job(100, 1.0, 12000);
  limited.memory_limit = MemoryMiB(4000);
  EXPECT_TRUE(m.admits(view, limited));
  EXPECT_DOUBLE_EQ(m.gpu_room(view), 400.0);
  EXPECT_DOUBLE_EQ(m.job_need(limited), 100.0);
}

TEST(FractionalModel, MaxJobsPerGpuBoundsAdmission) {
  const FractionalModel m = make_fractional_model({{"max_jobs_per_gpu", 2}});
  const DeviceProfile d = gpu16();
  const JobSpec a = fractional_job(100), b = fractional_job(100);
  const JobSpec* on_gpu[] = {&a, &b};
  EXPECT_FALSE(m.admits(GpuView{d, on_gpu, MemoryMiB(2000)}, fractional_job(100)));
  EXPECT_DOUBLE_EQ(m.gpu_room(GpuView{d, on_gpu, MemoryMiB(2000)}), -1.0);
}

TEST(FractionalModel, OutOfMemoryOnlyForTheJobPastItsOwnQuota) {
  const FractionalModel m = make_fractional_model(nlohmann::json::object());
  const DeviceProfile d = gpu16();
  JobSpec over = fractional_job(300, 1.0, 6000);
  over.memory_limit = MemoryMiB(4000);
  const JobSpec within = fractional_job(300, 1.0, 6000);  // no limit: its quota is its peak
  const JobSpec* residents[] = {&within, &over};
  const MemoryMiB in_use[] = {MemoryMiB(6000), MemoryMiB(6000)};
  std::uint8_t killed[2] = {0, 0};
  Time recovery = Time::from_seconds(9);
  EXPECT_TRUE(m.memory_fault(GpuView{d, residents, MemoryMiB(12000), in_use}, killed, recovery));
  EXPECT_EQ(killed[0], 0);
  EXPECT_EQ(killed[1], 1);
  EXPECT_EQ(recovery, Time::zero());
  // Within its quota (a memory profile below the limit) nobody dies.
  const MemoryMiB low[] = {MemoryMiB(6000), MemoryMiB(3500)};
  std::uint8_t none[2] = {0, 0};
  EXPECT_FALSE(m.memory_fault(GpuView{d, residents, MemoryMiB(9500), low}, none, recovery));
  EXPECT_EQ(none[1], 0);
}

// Alone, strict: a job of duty cycle u with share f runs at min(1, f / u).
TEST(FractionalModel, StrictLimiterAloneRunsAtShareOverDutyCycle) {
  const FractionalModel m = make_fractional_model({{"launch_gap_us", 0}});
  const JobSpec busy = fractional_job(250, 1.0), light = fractional_job(500, 0.2),
                mid = fractional_job(400, 0.8);
  GpuLoad load;
  EXPECT_NEAR(fractional_rates_of(m, {&busy}, &load)[0], 0.25, 1e-9);
  EXPECT_NEAR(load.useful_busy, 0.25, 1e-9);  // the rest of the GPU idles
  EXPECT_NEAR(fractional_rates_of(m, {&light})[0], 1.0, 1e-9);
  EXPECT_NEAR(fractional_rates_of(m, {&mid})[0], 0.5, 1e-9);
}

TEST(FractionalModel, WorkConservingLimiterLendsIdleTime) {
  const FractionalModel m =
      make_fractional_model({{"launch_gap_us", 0}, {"work_conserving", true}});
  const JobSpec busy = fractional_job(250, 1.0);
  EXPECT_NEAR(fractional_rates_of(m, {&busy})[0], 1.0, 1e-9);
}

// Two never-idle jobs with fixed 1 ms kernels, each held to half the GPU: their kernels
// alternate with a switch between, so each runs k per 2 (k + s): k / (2 (k + s)) = 1000 / 2200.
TEST(FractionalModel, HalfSharesAlternateAndPayTheSwitch) {
  const FractionalModel m = make_fractional_model(
      {{"launch_gap_us", 0}, {"switch_cost_us", 100}, {"time_slice_us", 2000}});
  JobSpec a = fractional_job(500, 1.0), b = fractional_job(500, 1.0);
  a.fixed_kernel_lengths = b.fixed_kernel_lengths = true;
  const auto r = fractional_rates_of(m, {&a, &b});
  EXPECT_NEAR(r[0], 1000.0 / 2200.0, 1e-6);
  EXPECT_NEAR(r[1], 1000.0 / 2200.0, 1e-6);
}

TEST(Limiter, StrictGrantsTheSmallerOfDutyCycleAndShare) {
  const double duty[] = {1.0, 0.2};
  const double share[] = {0.3, 0.7};
  double granted[2];
  limiter_grants(duty, share, false, granted);
  EXPECT_DOUBLE_EQ(granted[0], 0.3);
  EXPECT_DOUBLE_EQ(granted[1], 0.2);
}

// Work-conserving: 1 - 0.3 - 0.2 = 0.5 nobody uses goes to the one job that wants more.
TEST(Limiter, WorkConservingHandsUnusedTimeToHungryJobs) {
  const double duty[] = {1.0, 0.2};
  const double share[] = {0.3, 0.7};
  double granted[2];
  limiter_grants(duty, share, true, granted);
  EXPECT_NEAR(granted[0], 0.8, 1e-12);
  EXPECT_NEAR(granted[1], 0.2, 1e-12);
  // Two hungry jobs split the unused 0.2 by their shares 3:5, and use the whole GPU.
  const double both[] = {1.0, 1.0};
  const double shares[] = {0.3, 0.5};
  limiter_grants(both, shares, true, granted);
  EXPECT_NEAR(granted[0], 0.3 + 0.2 * 3.0 / 8.0, 1e-12);
  EXPECT_NEAR(granted[1], 0.5 + 0.2 * 5.0 / 8.0, 1e-12);
}

TEST(FractionalModel, DeclaresItsParametersAndRejectsUnknownOnes) {
  const FractionalModel m = make_fractional_model({{"switch_cost_us", 80}});
  bool saw_switch = false, saw_conserving = false;
  for (const auto& p : m.parameters()) {
    if (p.name == "switch_cost_us") {
      saw_switch = true;
      EXPECT_EQ(p.source, "scenario");
      EXPECT_DOUBLE_EQ(p.value, 80.0);
    }
    if (p.name == "work_conserving") {
      saw_conserving = true;
      EXPECT_THAT(p.source, HasSubstr("default"));
    }
  }
  EXPECT_TRUE(saw_switch);
  EXPECT_TRUE(saw_conserving);
  try {
    make_fractional_model({{"replicas", 4}});
    ADD_FAILURE() << "an unknown parameter was accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("replicas"));
  }
}

TEST(FractionalModel, IsRegistered) {
  nlohmann::json params = nlohmann::json::object();
  JsonObject o(params, "s.json", "/sharing/params");
  EXPECT_EQ(make_sharing_model("fractional", o, "s.json#/sharing")->name(), "fractional");
}

}  // namespace
}  // namespace gpumux
