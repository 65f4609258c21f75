#include "models/rate_memo.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/device_overlays.h"
#include "models/registry.h"
#include "models/timeslice/timeslice_physics.h"
#include "sim/base/json_fields.h"

namespace gpumux {
namespace {

// A key of one header word and two words per resident.
void set_key(RateMemo& memo, std::uint64_t header, const std::vector<std::uint64_t>& words) {
  memo.header(0) = header;
  for (std::size_t i = 0; i < words.size(); ++i) memo.word(i / 2, i % 2) = words[i];
}

TEST(RateMemo, AnswersARememberedKeyWithItsRatesAndLoad) {
  RateMemo memo(16, 1, 2, 4);
  double rates[2] = {0.0, 0.0};
  GpuLoad load;
  set_key(memo, 7, {1, 2, 3, 4});
  ASSERT_FALSE(memo.find(rates, load));
  const double computed[2] = {0.25, 0.75};
  memo.store(computed, GpuLoad{0.5, 0.125});

  set_key(memo, 7, {1, 2, 3, 4});
  ASSERT_TRUE(memo.find(rates, load));
  EXPECT_EQ(rates[0], 0.25);
  EXPECT_EQ(rates[1], 0.75);
  EXPECT_EQ(load.useful_busy, 0.5);
  EXPECT_EQ(load.overhead, 0.125);
}

TEST(RateMemo, AnyDifferentWordHeaderOrResidentCountMisses) {
  RateMemo memo(1, 1, 2, 4);  // one entry: every key lands on it
  double rates[2];
  GpuLoad load;
  set_key(memo, 7, {1, 2, 3, 4});
  ASSERT_FALSE(memo.find(rates, load));
  memo.store(rates, load);
  set_key(memo, 8, {1, 2, 3, 4});
  EXPECT_FALSE(memo.find(rates, load));
  set_key(memo, 7, {1, 2, 3, 5});
  EXPECT_FALSE(memo.find(rates, load));
  set_key(memo, 7, {3, 4, 1, 2});  // the same residents in another order
  EXPECT_FALSE(memo.find(rates, load));
  set_key(memo, 7, {1, 2, 3, 4});
  double one[1];
  EXPECT_FALSE(memo.find(one, load));  // only the first resident's words: another key
}

TEST(RateMemo, ANewKeyOverwritesItsEntry) {
  RateMemo memo(1, 1, 2, 4);
  double rates[1] = {0.5};
  GpuLoad load;
  set_key(memo, 1, {10, 11});
  ASSERT_FALSE(memo.find(rates, load));
  memo.store(rates, load);
  set_key(memo, 2, {10, 11});
  ASSERT_FALSE(memo.find(rates, load));
  memo.store(rates, load);
  set_key(memo, 1, {10, 11});
  EXPECT_FALSE(memo.find(rates, load));
}

TEST(RateMemo, RemembersOnlyUpToItsResidents) {
  const RateMemo memo(8, 1, 2, 4);
  EXPECT_FALSE(memo.remembers(0));
  EXPECT_TRUE(memo.remembers(1));
  EXPECT_TRUE(memo.remembers(4));
  EXPECT_FALSE(memo.remembers(5));
}

std::unique_ptr<SharingModel> make(const std::string& name, const nlohmann::json& params) {
  JsonObject o(params, "s.json", "/sharing/params");
  return make_sharing_model(name, o, "s.json");
}

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Property: a model that has answered many GPUs before (its memo full of earlier answers, keys
// repeating because the jobs come from a few kinds) gives the same bits as a model that has
// answered nothing, on random GPUs: two device types (one taking the H200 parameters), 1-10
// residents in random order, fixed and exponential lengths.
void expect_memo_changes_no_bits(const std::string& name, const nlohmann::json& params) {
  SCOPED_TRACE(name);
  const auto seasoned = make(name, params);
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(0.05, 1.0);
  std::vector<JobSpec> kinds(12);
  for (JobSpec& k : kinds) {
    k.sm_util = unit(rng);
    k.sm_share = unit(rng);
    k.kernel_length = Time::from_us(static_cast<std::int64_t>(20 + rng() % 4000));
    k.fixed_kernel_lengths = rng() % 4 == 0;
    k.memory = MemoryMiB(1024);
  }
  DeviceProfile devices[2];
  devices[0].name = "G";
  devices[1].name = "H200-141GB";
  for (DeviceProfile& d : devices) {
    d.memory = MemoryMiB(81920);
    d.sms = 132;
  }
  int compared = 0;
  for (int call = 0; call < 300; ++call) {
    const std::size_t n = 1 + rng() % 10;
    std::vector<const JobSpec*> residents;
    for (std::size_t i = 0; i < n; ++i) residents.push_back(&kinds[rng() % 6 + (call % 2) * 6]);
    const DeviceProfile& device = devices[rng() % 2];
    const GpuView view{device, residents, MemoryMiB(1024 * static_cast<std::int64_t>(n))};
    std::vector<double> a(n), b(n);
    GpuLoad la, lb;
    seasoned->compute_rates(view, a, la);
    make(name, params)->compute_rates(view, b, lb);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(bits(a[i]), bits(b[i])) << "call " << call;
    ASSERT_EQ(bits(la.useful_busy), bits(lb.useful_busy)) << "call " << call;
    ASSERT_EQ(bits(la.overhead), bits(lb.overhead)) << "call " << call;
    ++compared;
  }
  EXPECT_EQ(compared, 300);
}

TEST(RateMemo, TimeSliceRatesAreTheSameBitsWithAndWithoutEarlierAnswers) {
  expect_memo_changes_no_bits("timeslice", {{"max_jobs_per_gpu", 16}});
}

TEST(RateMemo, MpsRatesAreTheSameBitsWithAndWithoutEarlierAnswers) {
  expect_memo_changes_no_bits("mps", nlohmann::json::object());
  expect_memo_changes_no_bits("mps", {{"sm_allocation", "fluid"}});
}

}  // namespace
}  // namespace gpumux

namespace gpumux {
namespace {

// answer(): a miss computes and remembers, a hit answers without computing, and a GPU of more
// residents than remembered always computes and builds no key.
TEST(RateMemo, AnswerComputesOnceForAKeyAndAlwaysBeyondTheBound) {
  RateMemo memo(16, 1, 2, 2);
  int computed = 0;
  int keyed = 0;
  auto run = [&](std::span<double> rates, GpuLoad& load) {
    memo.answer(
        rates, load,
        [&](RateMemo& m) {
          ++keyed;
          set_key(m, 3, std::vector<std::uint64_t>(2 * rates.size(), 9));
        },
        [&] {
          ++computed;
          for (double& r : rates) r = 0.5;
          load = GpuLoad{0.75, 0.0};
        });
  };
  double two[2] = {0, 0};
  GpuLoad load;
  run(two, load);
  run(two, load);
  EXPECT_EQ(computed, 1);
  EXPECT_EQ(keyed, 2);
  EXPECT_EQ(two[1], 0.5);
  EXPECT_EQ(load.useful_busy, 0.75);
  double three[3] = {0, 0, 0};
  run(three, load);
  run(three, load);
  EXPECT_EQ(computed, 3);
  EXPECT_EQ(keyed, 2);
}

// apply_measurements (models/device_overlays.h): a measured value replaces a parameter on its
// device only where the parameter applies, and a measurement of a parameter the model does not
// list is a logic error.
TEST(DeviceOverlays, MeasurementsReplaceOnlyTheParametersThatApply) {
  const auto measured = device_measurements_of("timeslice");
  ASSERT_FALSE(measured.empty());
  TimeSliceParams base;
  base.switch_cost_us = -1.0;
  base.time_slice_us = -1.0;
  base.launch_gap_us = -1.0;
  DeviceOverlays<TimeSliceParams> all(base);
  const auto echoes = apply_measurements<TimeSliceParams>(
      all, "timeslice",
      {{kSwitchCostSpec, &TimeSliceParams::switch_cost_us, true},
       {kTimeSliceSpec, &TimeSliceParams::time_slice_us, true},
       {kTimeSliceLaunchGapSpec, &TimeSliceParams::launch_gap_us, true}});
  EXPECT_EQ(echoes.size(), measured.size());
  for (const DeviceMeasurement& m : measured) {
    DeviceProfile device;
    device.name = std::string(m.device);
    const TimeSliceParams& p = all.for_device(device);
    if (m.parameter == kSwitchCostSpec.key) {
      EXPECT_EQ(p.switch_cost_us, m.value);
    }
  }
  EXPECT_EQ(all.base().switch_cost_us, -1.0);

  DeviceOverlays<TimeSliceParams> none(base);
  EXPECT_TRUE(apply_measurements<TimeSliceParams>(
                  none, "timeslice",
                  {{kSwitchCostSpec, &TimeSliceParams::switch_cost_us, false},
                   {kTimeSliceSpec, &TimeSliceParams::time_slice_us, false},
                   {kTimeSliceLaunchGapSpec, &TimeSliceParams::launch_gap_us, false}})
                  .empty());

  DeviceOverlays<TimeSliceParams> partial(base);
  EXPECT_THROW(apply_measurements<TimeSliceParams>(
                   partial, "timeslice", {{kTimeSliceSpec, &TimeSliceParams::time_slice_us, true}}),
               std::logic_error);
}

}  // namespace
}  // namespace gpumux
