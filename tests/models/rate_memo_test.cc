#include "models/rate_memo.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

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
