// The workload catalogue reader (traces/fields/workload_catalogue.h): a good file and every class
// of bad input, each an InputError naming the file, the JSON pointer and the field.
#include "traces/fields/workload_catalogue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;

// Two device types by hand (the registry lives above traces): one with two MIG profiles.
std::vector<DeviceProfile> devices() {
  DeviceProfile a100;
  a100.name = "A100-40GB";
  a100.memory = MemoryMiB(40960);
  a100.sms = 108;
  a100.mig_memory_slices = 8;
  a100.mig_compute_slices = 7;
  MigProfile small;
  small.name = "1g.5gb";
  small.sms = 14;
  MigProfile big;
  big.name = "3g.20gb";
  big.sms = 42;
  a100.mig_profiles = {small, big};
  DeviceProfile v100;
  v100.name = "V100M16";
  v100.memory = MemoryMiB(16384);
  v100.sms = 80;
  return {a100, v100};
}

const char* kGood = R"({
  "description": "two workloads",
  "sources": [{"name": "test", "licence": "MIT"}],
  "workloads": {
    "resnet-bs64": {"devices": {"A100-40GB": {
      "iteration_s": 0.0283, "memory_mib": 4864, "sm_util": 0.4156, "mem_bw_util": 0.04,
      "mig_speeds": {"1g.5gb": 0.5787, "3g.20gb": 1.0035}}}},
    "bert-bs4": {"description": "x", "devices": {
      "A100-40GB": {"sm_util": 0.8},
      "V100M16": {"iteration_s": 0.1, "colocation": {"resnet-bs64": 0.6, "bert-bs4": 0.5}}}}
  }
})";

WorkloadCatalogue parse_catalogue(const std::string& text) {
  const std::vector<DeviceProfile> d = devices();
  return parse_workload_catalogue(nlohmann::json::parse(text), "cat.json", d);
}

std::string error_of(const std::string& text) {
  return input_error_message([&] { parse_catalogue(text); });
}

TEST(WorkloadCatalogue, ReadsEveryFactOfAGoodFile) {
  const WorkloadCatalogue c = parse_catalogue(kGood);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c.names(), (std::vector<std::string>{"bert-bs4", "resnet-bs64"}));
  const auto resnet = c.find("resnet-bs64");
  ASSERT_NE(resnet, nullptr);
  const WorkloadDeviceFacts* a = resnet->on("A100-40GB");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(resnet->on("V100M16"), nullptr);
  EXPECT_DOUBLE_EQ(*a->iteration_s, 0.0283);
  EXPECT_EQ(a->memory->mib(), 4864);
  EXPECT_DOUBLE_EQ(*a->sm_util, 0.4156);
  EXPECT_DOUBLE_EQ(*a->mem_bw_util, 0.04);
  ASSERT_NE(a->mig_speed("1g.5gb"), nullptr);
  EXPECT_DOUBLE_EQ(*a->mig_speed("1g.5gb"), 0.5787);
  EXPECT_DOUBLE_EQ(*a->mig_speed("3g.20gb"), 1.0035);  // read as measured; used as 1
  EXPECT_EQ(a->mig_speed("2g.10gb"), nullptr);
  const auto bert = c.find("bert-bs4");
  const WorkloadDeviceFacts* b = bert->on("A100-40GB");
  EXPECT_FALSE(b->iteration_s.has_value());
  EXPECT_FALSE(b->memory.has_value());
  EXPECT_FALSE(b->mem_bw_util.has_value());
  EXPECT_TRUE(b->mig_speeds.empty());
  const WorkloadDeviceFacts* v = bert->on("V100M16");
  ASSERT_EQ(v->colocation.size(), 2u);
  EXPECT_EQ(v->colocation[1].name, "resnet-bs64");
  EXPECT_DOUBLE_EQ(v->colocation[1].speed, 0.6);
  EXPECT_EQ(c.find("gnn-bs64"), nullptr);
}

TEST(WorkloadCatalogue, ReadsTheBundledCatalogue) {
  const std::string path =
      testing::source_path("traces/samples/workload_catalogue_miso_gavel.json");
  std::vector<DeviceProfile> d = devices();
  for (const char* name : {"1g.5gb+me", "1g.10gb", "2g.10gb", "4g.20gb", "7g.40gb"}) {
    MigProfile p;
    p.name = name;
    d[0].mig_profiles.push_back(p);
  }
  DeviceProfile p100;
  p100.name = "P100";
  p100.memory = MemoryMiB(16384);
  d.push_back(p100);
  const WorkloadCatalogue c = read_workload_catalogue(path, d);
  // MISO: 8 families x 4 batch sizes on A100-40GB, per-profile speeds for the shared four;
  // Gavel: 26 job types at scale factor 1 on P100 and V100.
  int a100 = 0, measured = 0, gavel = 0;
  for (const std::string& name : c.names()) {
    const auto w = c.find(name);
    if (const WorkloadDeviceFacts* f = w->on("A100-40GB")) {
      ++a100;
      if (!f->mig_speeds.empty()) ++measured;
    }
    if (w->on("P100") && w->on("V100M16")) ++gavel;
  }
  EXPECT_EQ(c.size(), 58u);
  EXPECT_EQ(a100, 32);
  EXPECT_EQ(measured, 16);
  EXPECT_EQ(gavel, 26);
  // Spot values from ../shared/data (mig_speeds_train.csv, workloads.csv).
  const WorkloadDeviceFacts* resnet = c.find("resnet-bs64")->on("A100-40GB");
  EXPECT_DOUBLE_EQ(*resnet->mig_speed("1g.5gb"), 0.5787);
  EXPECT_DOUBLE_EQ(*resnet->sm_util, 0.4156);
  EXPECT_EQ(c.find("mobilenet-bs64")->on("A100-40GB")->mig_speeds.size(), 0u);
}

TEST(WorkloadCatalogue, AMissingFileIsNamed) {
  const std::vector<DeviceProfile> d = devices();
  EXPECT_THAT(input_error_message([&] { read_workload_catalogue("no/such/cat.json", d); }),
              HasSubstr("no/such/cat.json"));
}

TEST(WorkloadCatalogue, BadStructureNamesThePointer) {
  EXPECT_THAT(error_of(R"({"description": "no workloads"})"),
              HasSubstr("cat.json#/workloads: field 'workloads': required field is missing"));
  EXPECT_THAT(error_of(R"({"workloads": {}})"), HasSubstr("expected at least one workload"));
  EXPECT_THAT(error_of(R"({"workloads": [1]})"), HasSubstr("cat.json#/workloads"));
  EXPECT_THAT(error_of(R"({"workloads": {"w": {}}})"),
              HasSubstr("cat.json#/workloads/w/devices: field 'devices': required field"));
  EXPECT_THAT(error_of(R"({"workloads": {"w": {"devices": {}}}, "extra": 1})"), HasSubstr("extra"));
  EXPECT_THAT(error_of(R"({"workloads": {"w": {"devices": {}, "speed": 1}}})"),
              HasSubstr("cat.json#/workloads/w/speed"));
}

TEST(WorkloadCatalogue, AnUnknownDeviceSuggestsTheClosest) {
  const std::string m = error_of(R"({"workloads": {"w": {"devices": {"A100-40G": {}}}}})");
  EXPECT_THAT(m, HasSubstr("cat.json#/workloads/w/devices/A100-40G: field 'A100-40G'"));
  EXPECT_THAT(m, HasSubstr("did you mean 'A100-40GB'?"));
}

TEST(WorkloadCatalogue, AnUnknownProfileSuggestsTheClosest) {
  const std::string m = error_of(
      R"({"workloads": {"w": {"devices": {"A100-40GB": {"mig_speeds": {"1g.5gbb": 0.5}}}}}})");
  EXPECT_THAT(m, HasSubstr("#/workloads/w/devices/A100-40GB/mig_speeds/1g.5gbb"));
  EXPECT_THAT(m, HasSubstr("did you mean '1g.5gb'?"));
  // A device without MIG has no profile to name.
  EXPECT_THAT(
      error_of(R"({"workloads": {"w": {"devices": {"V100M16": {"mig_speeds": {"1g.5gb": 1}}}}}})"),
      HasSubstr("device 'V100M16' has no MIG profiles"));
}

TEST(WorkloadCatalogue, AnUnknownPartnerSuggestsTheClosest) {
  const std::string m = error_of(
      R"({"workloads": {"resnet": {"devices": {"V100M16": {"colocation": {"resnnet": 0.5}}}}}})");
  EXPECT_THAT(m, HasSubstr("#/workloads/resnet/devices/V100M16/colocation/resnnet"));
  EXPECT_THAT(m, HasSubstr("did you mean 'resnet'?"));
}

TEST(WorkloadCatalogue, ValuesOutOfRangeOrOfTheWrongTypeAreRefused) {
  auto fact = [](const std::string& key, const std::string& value) {
    return error_of(R"({"workloads": {"w": {"devices": {"A100-40GB": {")" + key + "\": " + value +
                    "}}}}}");
  };
  EXPECT_THAT(fact("iteration_s", "0"), HasSubstr("field 'iteration_s'"));
  EXPECT_THAT(fact("iteration_s", "\"fast\""), HasSubstr("field 'iteration_s'"));
  EXPECT_THAT(fact("memory_mib", "0"), HasSubstr("field 'memory_mib'"));
  EXPECT_THAT(fact("memory_mib", "50000"), HasSubstr("field 'memory_mib'"));  // above the device
  EXPECT_THAT(fact("sm_util", "0"), HasSubstr("a duty cycle must be above 0"));
  EXPECT_THAT(fact("sm_util", "1.5"), HasSubstr("field 'sm_util'"));
  EXPECT_THAT(fact("mem_bw_util", "-0.1"), HasSubstr("field 'mem_bw_util'"));
  EXPECT_THAT(fact("mig_speeds", R"({"1g.5gb": 0})"), HasSubstr("must be above 0"));
  EXPECT_THAT(fact("mig_speeds", R"({"1g.5gb": 2.5})"), HasSubstr("field '1g.5gb'"));
  EXPECT_THAT(fact("mig_speeds", "[0.5]"), HasSubstr("#/workloads/w/devices/A100-40GB/mig_speeds"));
  EXPECT_THAT(fact("speedup", "1"), HasSubstr("speedup"));
}

}  // namespace
}  // namespace gpumux
