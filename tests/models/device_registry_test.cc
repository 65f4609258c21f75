#include "models/device_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/builtin_devices.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::input_error_message;
using json = nlohmann::json;

const DeviceRegistry& builtins() {
  static const DeviceRegistry r = DeviceRegistry::with_builtins();
  return r;
}

const DeviceProfile& device(const std::string& name) { return builtins().get(name, "test"); }

const MigProfile* find_profile(const DeviceProfile& d, const std::string& name) {
  for (const auto& p : d.mig_profiles) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<std::string> profile_names(const DeviceProfile& d) {
  std::vector<std::string> out;
  for (const auto& p : d.mig_profiles) out.push_back(p.name);
  return out;
}

MemoryMiB gib(double g) { return MemoryMiB(static_cast<std::int64_t>(g * 1024.0 + 0.5)); }

void define(DeviceRegistry& r, const json& spec) {
  JsonObject o(spec, "s.json", "/cluster/devices/0");
  r.define(o);
}

TEST(BuiltinDevices, AllExpectedDevicesExist) {
  const std::vector<std::string> expected = {
      "A100-40GB", "A100-80GB", "H100-80GB", "H100-94GB", "H200-141GB", "A30-24GB", "B200-180GB",
      "T4",        "P100",      "V100M16",   "V100M32",   "A10",        "G2",       "G3",
      "RTX4090",   "RTX-PRO-6000"};
  for (const auto& name : expected) {
    ASSERT_TRUE(builtins().contains(name)) << name;
    const auto& d = device(name);
    EXPECT_EQ(d.name, name);
    EXPECT_GT(d.memory.mib(), 0) << name;
    EXPECT_GT(d.sms, 0) << name;
    EXPECT_GT(d.memory_bandwidth_gbps, 0.0) << name;
    EXPECT_FALSE(d.source.empty()) << name;
  }
  EXPECT_EQ(builtins().names().size(), expected.size());
}

TEST(BuiltinDevices, NamesAreSorted) {
  const auto names = builtins().names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST(BuiltinDevices, BuiltinJsonIsTheSourceOfTheRegistry) {
  const auto list = builtin_devices_json();
  ASSERT_TRUE(list.is_array());
  EXPECT_EQ(list.size(), builtins().names().size());
}

TEST(BuiltinDevices, CapacitiesFromDatasheets) {
  EXPECT_EQ(device("A100-40GB").memory, MemoryMiB(40960));
  EXPECT_EQ(device("A100-40GB").sms, 108);
  EXPECT_EQ(device("A100-80GB").memory, MemoryMiB(81920));
  EXPECT_EQ(device("H100-80GB").sms, 132);
  EXPECT_EQ(device("V100M32").memory, MemoryMiB(32768));
  EXPECT_EQ(device("V100M16").memory, MemoryMiB(16384));
  EXPECT_EQ(device("T4").sms, 40);
  EXPECT_EQ(device("A10").sms, 72);
}

TEST(BuiltinDevices, OnlyMigCapableDevicesHaveProfiles) {
  for (const char* name : {"A100-40GB", "A100-80GB", "H100-80GB", "H100-94GB", "H200-141GB",
                           "A30-24GB", "B200-180GB"}) {
    EXPECT_TRUE(device(name).supports_mig()) << name;
    EXPECT_FALSE(device(name).mig_profiles.empty()) << name;
  }
  for (const char* name :
       {"T4", "P100", "V100M16", "V100M32", "A10", "G2", "G3", "RTX4090", "RTX-PRO-6000"}) {
    EXPECT_FALSE(device(name).supports_mig()) << name;
    EXPECT_TRUE(device(name).mig_profiles.empty()) << name;
  }
}

// docs/gpu-facts.md "Profiles on GPUs with 8 memory slices": one row per class, one column per device.
struct MigClass {
  int compute_slices;
  int memory_slices;
  int max_count;
  std::vector<int> offsets;
};

const std::vector<MigClass> kEightSliceClasses = {{1, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
                                                  {1, 1, 1, {0, 1, 2, 3, 4, 5, 6}},
                                                  {1, 2, 4, {0, 2, 4, 6}},
                                                  {2, 2, 3, {0, 2, 4}},
                                                  {3, 4, 2, {0, 4}},
                                                  {4, 4, 1, {0}},
                                                  {7, 8, 1, {0}}};

struct EightSliceDevice {
  const char* device;
  std::vector<std::string> names;  // in table order
};

class EightSliceMig : public ::testing::TestWithParam<EightSliceDevice> {};

TEST_P(EightSliceMig, MatchesGpuFactsTable) {
  const auto& c = GetParam();
  const auto& d = device(c.device);
  EXPECT_EQ(d.mig_memory_slices, 8);
  EXPECT_EQ(d.mig_compute_slices, 7);
  ASSERT_THAT(profile_names(d), ElementsAreArray(c.names));
  for (std::size_t i = 0; i < kEightSliceClasses.size(); ++i) {
    const auto& p = d.mig_profiles[i];
    const auto& k = kEightSliceClasses[i];
    SCOPED_TRACE(p.name);
    EXPECT_EQ(p.compute_slices, k.compute_slices);
    EXPECT_EQ(p.memory_slices, k.memory_slices);
    EXPECT_EQ(p.max_count, k.max_count);
    EXPECT_THAT(p.start_offsets, ElementsAreArray(k.offsets));
    EXPECT_LE(p.memory, d.memory);
    EXPECT_LE(p.sms, d.sms);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Devices, EightSliceMig,
    ::testing::Values(EightSliceDevice{"A100-40GB",
                                       {"1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb",
                                        "4g.20gb", "7g.40gb"}},
                      EightSliceDevice{"A100-80GB",
                                       {"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb",
                                        "4g.40gb", "7g.80gb"}},
                      EightSliceDevice{"H100-80GB",
                                       {"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb",
                                        "4g.40gb", "7g.80gb"}},
                      EightSliceDevice{"H100-94GB",
                                       {"1g.12gb", "1g.12gb+me", "1g.24gb", "2g.24gb", "3g.47gb",
                                        "4g.47gb", "7g.94gb"}},
                      EightSliceDevice{"H200-141GB",
                                       {"1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb",
                                        "4g.71gb", "7g.141gb"}},
                      EightSliceDevice{"B200-180GB",
                                       {"1g.23gb", "1g.23gb+me", "1g.45gb", "2g.45gb", "3g.90gb",
                                        "4g.90gb", "7g.180gb"}}),
    [](const auto& p) {
      std::string n = p.param.device;
      for (char& ch : n) {
        if (ch == '-') ch = '_';
      }
      return n;
    });

TEST(A100_40GB, SpecificFacts) {
  const auto& d = device("A100-40GB");
  EXPECT_EQ(d.mig_profiles.size(), 7u);
  const auto* p3 = find_profile(d, "3g.20gb");
  ASSERT_NE(p3, nullptr);
  EXPECT_THAT(p3->start_offsets, ElementsAre(0, 4));
  const auto* p1 = find_profile(d, "1g.5gb");
  ASSERT_NE(p1, nullptr);
  EXPECT_EQ(p1->max_count, 7);
  // SMs per profile (1g, 1g+me, 1g/2, 2g, 3g, 4g, 7g): 14, 14, 14, 28, 42, 56, 98.
  std::vector<int> sms;
  for (const auto& p : d.mig_profiles) sms.push_back(p.sms);
  EXPECT_THAT(sms, ElementsAre(14, 14, 14, 28, 42, 56, 98));
  // Usable GiB: 4.75, 4.75, 9.62, 9.62, 19.5, 19.5, 39.25 (docs/gpu-facts.md; 9.62 rounded).
  EXPECT_EQ(d.mig_profiles[0].memory, gib(4.75));
  EXPECT_NEAR(d.mig_profiles[2].memory.gib(), 9.62, 0.01);
  EXPECT_EQ(d.mig_profiles[4].memory, gib(19.5));
  EXPECT_EQ(d.mig_profiles[6].memory, gib(39.25));
}

TEST(A100_80GB, UsableMemoryPerProfile) {
  const auto& d = device("A100-80GB");
  std::vector<double> g;
  for (const auto& p : d.mig_profiles) g.push_back(p.memory.gib());
  const std::vector<double> expected = {9.5, 9.5, 19.5, 19.5, 39.25, 39.25, 79.0};
  ASSERT_EQ(g.size(), expected.size());
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], expected[i], 0.01) << i;
}

TEST(H100_80GB, SmsAndUsableMemoryPerProfile) {
  const auto& d = device("H100-80GB");
  std::vector<int> sms;
  std::vector<double> g;
  for (const auto& p : d.mig_profiles) {
    sms.push_back(p.sms);
    g.push_back(p.memory.gib());
  }
  EXPECT_THAT(sms, ElementsAre(16, 16, 26, 32, 60, 64, 132));
  const std::vector<double> expected = {9.75, 9.75, 19.62, 19.62, 39.5, 39.5, 79.25};
  ASSERT_EQ(g.size(), expected.size());
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], expected[i], 0.01) << i;
}

TEST(A30_24GB, FourMemorySlices) {
  const auto& d = device("A30-24GB");
  EXPECT_EQ(d.mig_memory_slices, 4);
  EXPECT_EQ(d.mig_compute_slices, 4);
  EXPECT_THAT(profile_names(d),
              ElementsAre("1g.6gb", "1g.6gb+me", "2g.12gb", "2g.12gb+me", "4g.24gb"));
  const auto* p1 = find_profile(d, "1g.6gb");
  ASSERT_NE(p1, nullptr);
  EXPECT_EQ(p1->max_count, 4);
  EXPECT_THAT(p1->start_offsets, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(p1->sms, 14);
  EXPECT_EQ(find_profile(d, "1g.6gb+me")->max_count, 1);
  const auto* p2 = find_profile(d, "2g.12gb");
  ASSERT_NE(p2, nullptr);
  EXPECT_EQ(p2->max_count, 2);
  EXPECT_THAT(p2->start_offsets, ElementsAre(0, 2));
  EXPECT_EQ(p2->sms, 28);
  EXPECT_EQ(find_profile(d, "2g.12gb+me")->max_count, 1);
  const auto* p4 = find_profile(d, "4g.24gb");
  ASSERT_NE(p4, nullptr);
  EXPECT_EQ(p4->max_count, 1);
  EXPECT_THAT(p4->start_offsets, ElementsAre(0));
  EXPECT_EQ(p4->sms, 56);
  EXPECT_EQ(p4->memory, gib(23.5));
}

TEST(BuiltinDevices, EveryProfileFitsItsDevice) {
  for (const auto& [name, d] : builtins().all()) {
    for (const auto& p : d.mig_profiles) {
      SCOPED_TRACE(name + " " + p.name);
      EXPECT_LE(p.memory_slices, d.mig_memory_slices);
      EXPECT_LE(p.compute_slices, d.mig_compute_slices);
      EXPECT_LE(p.max_count * p.memory_slices, d.mig_memory_slices);
      for (int o : p.start_offsets) {
        EXPECT_GE(o, 0);
        EXPECT_LE(o + p.memory_slices, d.mig_memory_slices);
      }
    }
  }
}

TEST(MpsClientLimit, SixteenBeforeVoltaFortyEightAfter) {
  EXPECT_EQ(device("P100").architecture, "pascal");
  EXPECT_EQ(device("P100").mps_client_limit, 16);
  for (const auto& [name, d] : builtins().all()) {
    if (d.architecture == "pascal") continue;
    EXPECT_EQ(d.mps_client_limit, 48) << name;
  }
}

TEST(MpsClientLimit, DerivedFromArchitectureForNewDevices) {
  DeviceRegistry r;
  define(r, {{"name", "OldGpu"}, {"memory_mib", 12288}, {"sms", 24}, {"architecture", "pascal"}});
  define(r, {{"name", "Kepler"}, {"memory_mib", 12288}, {"sms", 15}, {"architecture", "kepler"}});
  define(r, {{"name", "NewGpu"}, {"memory_mib", 12288}, {"sms", 24}, {"architecture", "volta"}});
  define(r, {{"name", "Plain"}, {"memory_mib", 12288}, {"sms", 24}});
  define(r, {{"name", "Explicit"},
             {"memory_mib", 12288},
             {"sms", 24},
             {"architecture", "pascal"},
             {"mps_client_limit", 4}});
  EXPECT_EQ(r.get("OldGpu", "t").mps_client_limit, 16);
  EXPECT_EQ(r.get("Kepler", "t").mps_client_limit, 16);
  EXPECT_EQ(r.get("NewGpu", "t").mps_client_limit, 48);
  EXPECT_EQ(r.get("Plain", "t").mps_client_limit, 48);
  EXPECT_EQ(r.get("Plain", "t").architecture, "unknown");
  EXPECT_EQ(r.get("Plain", "t").source, "scenario");
  EXPECT_EQ(r.get("Explicit", "t").mps_client_limit, 4);
}

TEST(DeviceOverride, PartialOverrideKeepsOtherFields) {
  DeviceRegistry r = DeviceRegistry::with_builtins();
  const DeviceProfile before = r.get("A100-40GB", "t");
  define(r, {{"name", "A100-40GB"}, {"memory_bandwidth_gbps", 1000}});
  const auto& after = r.get("A100-40GB", "t");
  EXPECT_DOUBLE_EQ(after.memory_bandwidth_gbps, 1000.0);
  EXPECT_EQ(after.memory, before.memory);
  EXPECT_EQ(after.sms, before.sms);
  EXPECT_EQ(after.architecture, before.architecture);
  EXPECT_EQ(after.mps_client_limit, before.mps_client_limit);
  EXPECT_EQ(after.mig_memory_slices, before.mig_memory_slices);
  EXPECT_EQ(profile_names(after), profile_names(before));
  EXPECT_THAT(after.source, HasSubstr("overridden"));
  // The built-in registry used elsewhere is untouched.
  EXPECT_DOUBLE_EQ(builtins().get("A100-40GB", "t").memory_bandwidth_gbps, 1555.0);
}

TEST(DeviceOverride, ReplacingTheMigTable) {
  DeviceRegistry r = DeviceRegistry::with_builtins();
  define(r, {{"name", "A100-80GB"},
             {"mig",
              {{"memory_slices", 8},
               {"compute_slices", 7},
               {"profiles",
                {{{"name", "7g.80gb"},
                  {"compute_slices", 7},
                  {"memory_slices", 8},
                  {"memory_mib", 80000},
                  {"sms", 98},
                  {"max_count", 1},
                  {"start_offsets", {0}}}}}}}});
  const auto& d = r.get("A100-80GB", "t");
  EXPECT_THAT(profile_names(d), ElementsAre("7g.80gb"));
  EXPECT_EQ(d.mig_profiles[0].memory, MemoryMiB(80000));
  EXPECT_EQ(d.memory, MemoryMiB(81920));
}

TEST(DeviceOverride, JsonRoundTrip) {
  for (const auto& [name, d] : builtins().all()) {
    DeviceRegistry r;
    define(r, device_to_json(d));
    const auto& e = r.get(name, "t");
    EXPECT_EQ(device_to_json(e), device_to_json(d)) << name;
  }
}

struct BadDevice {
  const char* label;
  json spec;
  const char* where;  // after "s.json#"
  const char* field;
  const char* what;
};

class BadDeviceTest : public ::testing::TestWithParam<BadDevice> {};

json mig_with(const json& profile_patch, int memory_slices = 8) {
  json p = {{"name", "3g.x"},         {"compute_slices", 3}, {"memory_slices", 4},
            {"memory_mib", 20000},    {"sms", 42},           {"max_count", 2},
            {"start_offsets", {0, 4}}};
  p.merge_patch(profile_patch);
  return {
      {"name", "NewGpu"},
      {"memory_mib", 40960},
      {"sms", 108},
      {"mig",
       {{"memory_slices", memory_slices}, {"compute_slices", 7}, {"profiles", json::array({p})}}}};
}

TEST_P(BadDeviceTest, NamesPointerAndField) {
  const auto& c = GetParam();
  DeviceRegistry r = DeviceRegistry::with_builtins();
  const std::string msg = input_error_message([&] { define(r, c.spec); });
  EXPECT_THAT(msg, HasSubstr(std::string("s.json#") + c.where)) << c.label;
  EXPECT_THAT(msg, HasSubstr(std::string("field '") + c.field + "'")) << c.label;
  EXPECT_THAT(msg, HasSubstr(c.what)) << c.label;
}

INSTANTIATE_TEST_SUITE_P(
    All, BadDeviceTest,
    ::testing::Values(
        BadDevice{"new_without_memory",
                  {{"name", "X1"}, {"sms", 10}},
                  "/cluster/devices/0",
                  "memory_mib",
                  "required key is missing"},
        BadDevice{"new_without_sms",
                  {{"name", "X1"}, {"memory_mib", 1024}},
                  "/cluster/devices/0",
                  "sms",
                  "required key is missing"},
        BadDevice{"no_name",
                  {{"memory_mib", 1024}, {"sms", 10}},
                  "/cluster/devices/0",
                  "name",
                  "required key is missing"},
        BadDevice{"zero_memory",
                  {{"name", "X1"}, {"memory_mib", 0}, {"sms", 10}},
                  "/cluster/devices/0/memory_mib",
                  "memory_mib",
                  "expected an integer in"},
        BadDevice{"memory_as_string",
                  {{"name", "A100-40GB"}, {"memory_mib", "40GB"}},
                  "/cluster/devices/0/memory_mib",
                  "memory_mib",
                  "expected an integer"},
        BadDevice{"unknown_key",
                  {{"name", "A100-40GB"}, {"memory_gb", 40}},
                  "/cluster/devices/0/memory_gb",
                  "memory_gb",
                  "unknown key"},
        BadDevice{"bad_offset", mig_with({{"start_offsets", {0, 6}}}),
                  "/cluster/devices/0/mig/profiles/0/start_offsets/1", "start_offsets",
                  "expected an offset in [0, 4]"},
        BadDevice{"negative_offset", mig_with({{"start_offsets", {-1}}}),
                  "/cluster/devices/0/mig/profiles/0/start_offsets/0", "start_offsets",
                  "expected an offset"},
        BadDevice{"string_offset", mig_with({{"start_offsets", {"0"}}}),
                  "/cluster/devices/0/mig/profiles/0/start_offsets/0", "start_offsets",
                  "expected an offset"},
        BadDevice{"empty_offsets", mig_with({{"start_offsets", json::array()}}),
                  "/cluster/devices/0/mig/profiles/0/start_offsets", "start_offsets",
                  "non-empty array"},
        BadDevice{"profile_too_big", mig_with({{"memory_slices", 8}}, 4),
                  "/cluster/devices/0/mig/profiles/0/memory_slices", "memory_slices",
                  "expected an integer in [1, 4]"},
        BadDevice{"profile_missing_sms", mig_with({{"sms", nullptr}}),
                  "/cluster/devices/0/mig/profiles/0", "sms", "required key is missing"},
        BadDevice{"profile_unknown_key", mig_with({{"slices", 3}}),
                  "/cluster/devices/0/mig/profiles/0/slices", "slices", "unknown key"},
        BadDevice{"profiles_not_array",
                  {{"name", "A100-40GB"},
                   {"mig", {{"memory_slices", 8}, {"compute_slices", 7}, {"profiles", 3}}}},
                  "/cluster/devices/0/mig/profiles",
                  "profiles",
                  "expected an array"}),
    [](const auto& p) { return std::string(p.param.label); });

TEST(DeviceOverride, ProfileMayNotUseMoreComputeSlicesThanTheDevice) {
  // A30 has 4 compute slices: a profile claiming 7 cannot exist on it.
  DeviceRegistry r = DeviceRegistry::with_builtins();
  const json spec = {{"name", "A30-24GB"},
                     {"mig",
                      {{"memory_slices", 4},
                       {"compute_slices", 4},
                       {"profiles", json::array({{{"name", "7g.24gb"},
                                                  {"compute_slices", 7},
                                                  {"memory_slices", 4},
                                                  {"memory_mib", 24064},
                                                  {"sms", 56},
                                                  {"max_count", 1},
                                                  {"start_offsets", {0}}}})}}}};
  bool threw = false;
  std::string msg;
  try {
    define(r, spec);
  } catch (const InputError& e) {
    threw = true;
    msg = e.what();
  }
  ASSERT_TRUE(threw) << "a 7-slice profile was accepted on a 4-slice device";
  EXPECT_THAT(msg, HasSubstr("s.json#/cluster/devices/0/mig/profiles/0/compute_slices"));
  EXPECT_THAT(msg, HasSubstr("field 'compute_slices'"));
}

TEST(DeviceRegistry, UnknownDeviceListsKnownOnes) {
  const std::string msg =
      input_error_message([] { builtins().get("A200", "s.json#/cluster/node_groups/0/device"); });
  EXPECT_THAT(msg, HasSubstr("s.json#/cluster/node_groups/0/device"));
  EXPECT_THAT(msg, HasSubstr("field 'device'"));
  EXPECT_THAT(msg, HasSubstr("'A200'"));
  for (const auto& n : builtins().names()) EXPECT_THAT(msg, HasSubstr(n));
}

}  // namespace
}  // namespace gpumux
