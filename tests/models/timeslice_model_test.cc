#include "models/timeslice/timeslice_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "models/registry.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;

DeviceProfile timeslice_gpu16() {
  DeviceProfile d;
  d.name = "G";
  d.memory = MemoryMiB(16384);
  d.sms = 80;
  return d;
}

JobSpec timeslice_job(double sm_util, std::int64_t kernel_us, std::int64_t memory_mib = 1000) {
  JobSpec j;
  j.sm_util = sm_util;
  j.kernel_length = Time::from_us(kernel_us);
  j.memory = MemoryMiB(memory_mib);
  return j;
}

TimeSliceModel make_timeslice_model(const nlohmann::json& params) {
  JsonObject o(params, "s.json", "/sharing/params");
  return TimeSliceModel(o);
}

std::string error_of(const nlohmann::json& params) {
  try {
    make_timeslice_model(params);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TimeSliceModel, SingleJobRunsAsAlone) {
  const TimeSliceModel m = make_timeslice_model(nlohmann::json::object());
  const DeviceProfile d = timeslice_gpu16();
  const JobSpec a = timeslice_job(0.4, 100);
  const JobSpec* residents[] = {&a};
  double rate = 0;
  GpuLoad load;
  m.compute_rates(GpuView{d, residents, a.memory}, std::span<double>(&rate, 1), load);
  EXPECT_NEAR(rate, 1.0, 1e-9);
  EXPECT_NEAR(load.useful_busy, 0.4, 1e-9);
  EXPECT_NEAR(load.overhead, 0.0, 1e-9);
}

TEST(TimeSliceModel, TwoSaturatingJobsSplitTheGpuMinusSwitches) {
  const TimeSliceModel m = make_timeslice_model({{"switch_cost_us", 50}});
  const DeviceProfile d = timeslice_gpu16();
  const JobSpec a = timeslice_job(1.0, 1000), b = timeslice_job(1.0, 1000);
  const JobSpec* residents[] = {&a, &b};
  double rates[2];
  GpuLoad load;
  m.compute_rates(GpuView{d, residents, MemoryMiB(2000)}, rates, load);
  // Strict alternation: each turn is one kernel (cut at the 1024 us slice, exponential lengths:
  // 1 / (1 - e^(-1024/1000)) turns per kernel) and one 50 us switch.
  const double turns = 1.0 / (1.0 - std::exp(-1024.0 / 1000.0));
  EXPECT_NEAR(rates[0], 1000.0 / (2.0 * (1000.0 + 50.0 * turns)), 0.002);
  EXPECT_NEAR(rates[1], rates[0], 1e-9);
  EXPECT_NEAR(load.useful_busy + load.overhead, 1.0, 1e-6);
  EXPECT_GT(load.overhead, 0.04);
}

TEST(TimeSliceModel, H200GpusTakeTheMeasuredDefaults) {
  const TimeSliceModel m = make_timeslice_model(nlohmann::json::object());
  DeviceProfile h200 = timeslice_gpu16();
  h200.name = "H200-141GB";
  // Two busy processes of fixed 200 us kernels at the measured alone duty (launch gap
  // included): the H200 measured 0.31 each; the assumed 50 us switch would give 0.61.
  JobSpec a = timeslice_job(0.9551, 200), b = timeslice_job(0.9551, 200);
  a.fixed_kernel_lengths = b.fixed_kernel_lengths = true;
  const JobSpec* residents[] = {&a, &b};
  double rates[2];
  GpuLoad load;
  m.compute_rates(GpuView{h200, residents, MemoryMiB(2000)}, rates, load);
  EXPECT_NEAR(rates[0], 0.310, 0.01);
  m.compute_rates(GpuView{timeslice_gpu16(), residents, MemoryMiB(2000)}, rates, load);
  EXPECT_NEAR(rates[0], (200.0 / 0.9551) / (2.0 * 250.0), 0.01);
  bool declared = false;
  for (const ModelParameter& p : m.parameters()) {
    if (p.name == "switch_cost_us@H200-141GB") {
      declared = true;
      EXPECT_DOUBLE_EQ(p.value, 137.0);
      EXPECT_NE(p.source.find("measured on H200"), std::string::npos);
    }
  }
  EXPECT_TRUE(declared);
  // A scenario value applies to every device, H200 included.
  const TimeSliceModel set = make_timeslice_model({{"switch_cost_us", 50}});
  set.compute_rates(GpuView{h200, residents, MemoryMiB(2000)}, rates, load);
  EXPECT_NEAR(rates[0], (200.0 / 0.9551) / (2.0 * 250.0), 0.01);
}

TEST(TimeSliceModel, FixedLengthsLockIntoAlternation) {
  const TimeSliceModel m = make_timeslice_model({{"switch_cost_us", 137}, {"time_slice_us", 2000}});
  JobSpec a = timeslice_job(0.5, 2000), b = timeslice_job(0.5, 2000);
  const JobSpec* residents[] = {&a, &b};
  double rates[2];
  GpuLoad load;
  m.compute_rates(GpuView{timeslice_gpu16(), residents, MemoryMiB(2000)}, rates, load);
  const double variable = rates[0];
  a.fixed_kernel_lengths = b.fixed_kernel_lengths = true;
  m.compute_rates(GpuView{timeslice_gpu16(), residents, MemoryMiB(2000)}, rates, load);
  EXPECT_NEAR(rates[0], 4000.0 / (2.0 * 2137.0), 0.005);  // measured 0.94 on an H200
  EXPECT_GT(rates[0], variable + 0.1);
}

TEST(TimeSliceModel, ShortKernelsLoseMoreToSwitchesThanLongOnes) {
  const TimeSliceModel m = make_timeslice_model({{"switch_cost_us", 50}});
  const DeviceProfile d = timeslice_gpu16();
  auto overhead = [&](std::int64_t kernel_us) {
    const JobSpec a = timeslice_job(0.3, kernel_us), b = timeslice_job(0.3, kernel_us);
    const JobSpec* residents[] = {&a, &b};
    double rates[2];
    GpuLoad load;
    m.compute_rates(GpuView{d, residents, MemoryMiB(2000)}, rates, load);
    return load.overhead;
  };
  EXPECT_GT(overhead(20), 3 * overhead(5000));
}

TEST(TimeSliceModel, MemoryAdmissionChecksTheSum) {
  const TimeSliceModel m = make_timeslice_model({{"admission", "memory"}, {"max_jobs_per_gpu", 3}});
  const DeviceProfile d = timeslice_gpu16();
  const JobSpec a = timeslice_job(0.5, 100, 10000);
  const JobSpec* one[] = {&a};
  EXPECT_TRUE(m.admits(GpuView{d, one, a.memory}, timeslice_job(0.5, 100, 6000)));
  EXPECT_FALSE(m.admits(GpuView{d, one, a.memory}, timeslice_job(0.5, 100, 7000)));
  const JobSpec* three[] = {&a, &a, &a};
  EXPECT_FALSE(m.admits(GpuView{d, three, MemoryMiB(3000)}, timeslice_job(0.5, 100, 0)));
}

// A resident that uses less than its peak right now (a memory profile in a low phase) still
// counts with its peak: admission promises room for the whole of its life.
TEST(TimeSliceModel, MemoryAdmissionCountsPeaksNotCurrentUse) {
  const TimeSliceModel m = make_timeslice_model({{"admission", "memory"}});
  const DeviceProfile d = timeslice_gpu16();
  const JobSpec a = timeslice_job(0.5, 100, 10000);
  const JobSpec* one[] = {&a};
  const GpuView low_phase{d, one, MemoryMiB(2000)};
  EXPECT_FALSE(m.admits(low_phase, timeslice_job(0.5, 100, 7000)));
  EXPECT_TRUE(m.admits(low_phase, timeslice_job(0.5, 100, 6000)));
  EXPECT_DOUBLE_EQ(m.gpu_room(low_phase), 16384.0 - 10000.0);
}

TEST(TimeSliceModel, ReplicasAdmitWithoutMemoryCheckAndOverflowKillsTheAllocator) {
  const TimeSliceModel m = make_timeslice_model({{"admission", "replicas"}, {"replicas", 2}});
  const DeviceProfile d = timeslice_gpu16();
  const JobSpec a = timeslice_job(0.5, 100, 10000), b = timeslice_job(0.5, 100, 10000);
  const JobSpec* one[] = {&a};
  EXPECT_TRUE(m.admits(GpuView{d, one, a.memory}, b));  // 20000 MiB on a 16384 MiB GPU
  const JobSpec* two[] = {&a, &b};
  EXPECT_FALSE(m.admits(GpuView{d, two, MemoryMiB(20000)}, timeslice_job(0.1, 100, 0)));
  std::uint8_t killed[2] = {9, 9};
  Time recovery = Time::from_seconds(99);
  ASSERT_TRUE(m.memory_fault(GpuView{d, two, MemoryMiB(20000)}, killed, recovery));
  EXPECT_EQ(killed[0], 0);  // a allocated first and keeps its memory
  EXPECT_EQ(killed[1], 1);
  EXPECT_EQ(recovery, Time::zero());
}

TEST(TimeSliceModel, OutOfMemoryKillsTheAskerNotTheNeighbourWhoseMemoryDidNotChange) {
  const TimeSliceModel m = make_timeslice_model({{"admission", "replicas"}, {"replicas", 2}});
  const DeviceProfile d = timeslice_gpu16();
  const JobSpec a = timeslice_job(0.5, 100, 10000), b = timeslice_job(0.5, 100, 10000);
  const JobSpec* two[] = {&a, &b};
  const MemoryMiB memory[] = {MemoryMiB(10000), MemoryMiB(10000)};
  // a, placed first, just grew; b did not change: a's allocation is the one that fails.
  const std::uint8_t asked[] = {1, 0};
  std::uint8_t killed[2] = {9, 9};
  Time recovery = Time::from_seconds(99);
  ASSERT_TRUE(
      m.memory_fault(GpuView{d, two, MemoryMiB(20000), memory, 0, {}, asked}, killed, recovery));
  EXPECT_EQ(killed[0], 1);
  EXPECT_EQ(killed[1], 0);
  EXPECT_EQ(recovery, Time::zero());
  // `all` still takes down both, with its recovery delay.
  const TimeSliceModel all =
      make_timeslice_model({{"admission", "replicas"}, {"oom", "all"}, {"fault_recovery_s", 2}});
  ASSERT_TRUE(
      all.memory_fault(GpuView{d, two, MemoryMiB(20000), memory, 0, {}, asked}, killed, recovery));
  EXPECT_EQ(killed[0], 1);
  EXPECT_EQ(killed[1], 1);
  EXPECT_EQ(recovery, Time::from_seconds(2));
}

TEST(TimeSliceModel, AFatalFaultKillsTheFaultingJobAlone) {
  const TimeSliceModel m = make_timeslice_model(nlohmann::json::object());
  const DeviceProfile d = timeslice_gpu16();
  const JobSpec a = timeslice_job(0.5, 100, 1000), b = timeslice_job(0.5, 100, 1000),
                c = timeslice_job(0.5, 100, 1000);
  const JobSpec* three[] = {&a, &b, &c};
  std::uint8_t killed[3] = {0, 0, 0};
  Time recovery = Time::from_seconds(99);
  m.fatal_fault(GpuView{d, three, MemoryMiB(3000)}, 1, killed, recovery);
  EXPECT_EQ(killed[0], 0);
  EXPECT_EQ(killed[1], 1);
  EXPECT_EQ(killed[2], 0);
  EXPECT_EQ(recovery, Time::zero());
}

TEST(TimeSliceModel, DeclaresParametersWithSources) {
  const TimeSliceModel m = make_timeslice_model({{"time_slice", "long"}});
  bool saw_slice = false, saw_switch = false;
  for (const auto& p : m.parameters()) {
    if (p.name == "time_slice_us") {
      saw_slice = true;
      EXPECT_DOUBLE_EQ(p.value, 30000);
      EXPECT_THAT(p.source, HasSubstr("unverified"));
    }
    if (p.name == "switch_cost_us") {
      saw_switch = true;
      EXPECT_DOUBLE_EQ(p.value, 50);
      EXPECT_THAT(p.source, HasSubstr("assumption"));
    }
  }
  EXPECT_TRUE(saw_slice && saw_switch);
}

TEST(TimeSliceModel, CalibrationFileSuppliesFittedParameters) {
  testing::TempFile cal("params.json", R"({"model": "timeslice", "source": "fit",
      "params": {"interference": 0.9, "switch_cost_us": 12, "kernel_us": 100,
                 "time_slice_us": 1024, "util_exponent": 1.6, "util_scale": 0.47}})");
  const TimeSliceModel m = make_timeslice_model({{"calibration", cal.path()}});
  for (const auto& p : m.parameters()) {
    if (p.name == "interference") {
      EXPECT_DOUBLE_EQ(p.value, 0.9);
      EXPECT_THAT(p.source, HasSubstr("calibration " + cal.path()));
    }
    if (p.name == "switch_cost_us") {
      EXPECT_DOUBLE_EQ(p.value, 12);
    }
  }
}

TEST(TimeSliceModel, BadParametersNameTheKey) {
  EXPECT_THAT(error_of({{"admission", "lottery"}}), HasSubstr("s.json#/sharing/params/admission"));
  EXPECT_THAT(error_of({{"time_slice", "forever"}}), HasSubstr("field 'time_slice'"));
  EXPECT_THAT(error_of({{"switch_cost_us", -1}}), HasSubstr("field 'switch_cost_us'"));
  EXPECT_THAT(error_of({{"oom", "nobody"}}), HasSubstr("field 'oom'"));
  EXPECT_THAT(error_of({{"slice", 3}}), HasSubstr("unknown key"));
  EXPECT_THAT(error_of({{"calibration", "/nonexistent/params.json"}}), HasSubstr("cannot open"));
}

TEST(TimeSliceModel, RegisteredUnderItsScenarioName) {
  nlohmann::json params = nlohmann::json::object();
  JsonObject o(params, "s.json", "/sharing/params");
  EXPECT_EQ(make_sharing_model("timeslice", o, "s.json#/sharing/model")->name(), "timeslice");
}

}  // namespace
}  // namespace gpumux
