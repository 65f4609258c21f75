#include "models/mig/mig_parted.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/mig/mig_test_util.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using gpumux::testing::input_error_message;
using gpumux::testing::source_path;
using gpumux::testing::TempFile;
using mig_test::device;
using ::testing::HasSubstr;

const char* const kSpecExample = R"(version: v1
mig-configs:
  all-balanced:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}
)";

std::string parse_error(const std::string& text, const std::string& config = "c") {
  return input_error_message([&] { parse_mig_parted(text, "m.yaml", config); });
}

std::vector<std::string> profiles_of(const MigDeviceLayout& l) {
  std::vector<std::string> out;
  for (const MigInstanceSpec& i : l.instances) out.push_back(i.profile);
  return out;
}

TEST(MigParted, ParsesTheSpecExample) {
  const MigPartedConfig c = parse_mig_parted(kSpecExample, "m.yaml", "all-balanced");
  EXPECT_EQ(c.name, "all-balanced");
  ASSERT_EQ(c.entries.size(), 1u);
  const MigPartedEntry& e = c.entries[0];
  EXPECT_TRUE(e.all_devices);
  EXPECT_TRUE(e.mig_enabled);
  EXPECT_EQ(e.where, "m.yaml:4:7");
  const std::vector<std::pair<std::string, int>> expected = {
      {"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}};
  EXPECT_EQ(e.mig_devices, expected);
  const MigDeviceLayout l = mig_parted_uniform_layout(c, device("A100-80GB"));
  EXPECT_TRUE(l.mig_enabled);
  EXPECT_EQ(profiles_of(l), (std::vector<std::string>{"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}));
  EXPECT_TRUE(is_valid_layout(device("A100-80GB"), l.instances));
}

TEST(MigParted, DeviceIndicesAndPerIndexLayouts) {
  const MigPartedConfig c = parse_mig_parted(R"(version: v1
mig-configs:
  c:
    - devices: [0, 1]
      mig-enabled: true
      mig-devices:
        "7g.40gb": 1
    - devices: [2]
      mig-enabled: false
    - devices: all
      mig-enabled: true
      mig-devices:
        "1g.5gb": 7
)",
                                             "m.yaml", "c");
  ASSERT_EQ(c.entries.size(), 3u);
  EXPECT_EQ(c.entries[0].devices, (std::vector<int>{0, 1}));
  const std::vector<MigDeviceLayout> l = mig_parted_layouts(c, device("A100-40GB"), 4);
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(profiles_of(l[0]), (std::vector<std::string>{"7g.40gb"}));
  EXPECT_EQ(l[1], l[0]);
  EXPECT_FALSE(l[2].mig_enabled);
  EXPECT_EQ(l[3].instances.size(), 7u);
  EXPECT_THAT(input_error_message([&] { mig_parted_uniform_layout(c, device("A100-40GB")); }),
              HasSubstr("GPU 2 of a A100-40GB node"));
}

// GPU index 999999 once built a million per-index layouts and turned MIG off on every real GPU.
TEST(MigParted, DeviceIndexBeyondANodeIsAnError) {
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c:\n    - devices: [0, 999999]\n"
                          "      mig-enabled: false\n"),
              HasSubstr("m.yaml:4:20: field 'mig-configs.c[0].devices': expected an integer in "
                        "[0, 63], got '999999'"));
}

// Nesting is bounded by yaml-cpp's own depth guard: an error at the place, not a stack overflow.
TEST(MigParted, DeepNestingIsAnError) {
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c: " + std::string(100000, '[') +
                          std::string(100000, ']') + "\n"),
              HasSubstr("m.yaml:3:"));
}

TEST(MigParted, DisabledAndEmptyLayouts) {
  const MigPartedConfig off = parse_mig_parted(R"(version: v1
mig-configs:
  off:
    - devices: all
      mig-enabled: false
  on-empty:
    - devices: all
      mig-enabled: true
      mig-devices: {}
)",
                                               "m.yaml", "off");
  EXPECT_FALSE(mig_parted_uniform_layout(off, device("A100-40GB")).mig_enabled);
  EXPECT_FALSE(mig_parted_uniform_layout(off, device("V100M32")).mig_enabled);
  const MigPartedConfig empty = parse_mig_parted(R"(version: v1
mig-configs:
  on-empty:
    - devices: all
      mig-enabled: true
      mig-devices: {}
)",
                                                 "m.yaml", "on-empty");
  const MigDeviceLayout l = mig_parted_uniform_layout(empty, device("A100-40GB"));
  EXPECT_TRUE(l.mig_enabled);
  EXPECT_TRUE(l.instances.empty());
  EXPECT_THAT(input_error_message([&] { mig_parted_uniform_layout(empty, device("V100M32")); }),
              HasSubstr("V100M32, which does not support MIG"));
}

TEST(MigParted, ExampleA100File) {
  const std::string file = source_path("scenarios/mig-parted/a100-40gb.yaml");
  const DeviceProfile& d = device("A100-40GB");
  EXPECT_FALSE(mig_parted_uniform_layout(read_mig_parted(file, "all-disabled"), d).mig_enabled);
  const MigDeviceLayout all1g = mig_parted_uniform_layout(read_mig_parted(file, "all-1g"), d);
  EXPECT_EQ(profiles_of(all1g), std::vector<std::string>(7, "1g.5gb"));
  const MigDeviceLayout balanced = mig_parted_uniform_layout(read_mig_parted(file, "balanced"), d);
  EXPECT_EQ(profiles_of(balanced),
            (std::vector<std::string>{"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}));
  const MigDeviceLayout half = mig_parted_uniform_layout(read_mig_parted(file, "half-and-half"), d);
  EXPECT_EQ(half.instances, (std::vector<MigInstanceSpec>{{"4g.20gb", 0}, {"3g.20gb", 4}}));
  const MigPartedConfig split = read_mig_parted(file, "half-mig");
  const std::vector<MigDeviceLayout> per_gpu = mig_parted_layouts(split, d, 8);
  EXPECT_TRUE(per_gpu[3].mig_enabled);
  EXPECT_FALSE(per_gpu[4].mig_enabled);
  EXPECT_THAT(input_error_message([&] { mig_parted_uniform_layout(split, d); }),
              HasSubstr("one layout for every GPU"));
  const MigPartedIndexLayouts by_index = mig_parted_index_layouts(split, d);
  ASSERT_EQ(by_index.distinct.size(), 2u);
  EXPECT_EQ(by_index.by_index, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(by_index.distinct[0], per_gpu[0]);
  EXPECT_EQ(by_index.distinct[1], per_gpu[4]);
  // The A100-40GB names mean other things (or nothing) on other devices.
  EXPECT_THAT(input_error_message([&] {
                mig_parted_uniform_layout(read_mig_parted(file, "all-1g"), device("A100-80GB"));
              }),
              HasSubstr("unknown MIG profile '1g.5gb' on A100-80GB"));
}

TEST(MigParted, ExampleFleetFileFiltersByPciId) {
  const std::string file = source_path("scenarios/mig-parted/mixed-fleet.yaml");
  const MigPartedConfig c = read_mig_parted(file, "all-balanced");
  EXPECT_EQ(profiles_of(mig_parted_uniform_layout(c, device("A100-40GB"))),
            (std::vector<std::string>{"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}));
  EXPECT_EQ(profiles_of(mig_parted_uniform_layout(c, device("H100-80GB"))),
            (std::vector<std::string>{"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}));
  EXPECT_EQ(profiles_of(mig_parted_uniform_layout(c, device("A30-24GB"))),
            (std::vector<std::string>{"2g.12gb", "1g.6gb", "1g.6gb"}));
  EXPECT_FALSE(mig_parted_uniform_layout(c, device("H200-141GB")).mig_enabled);
  const MigPartedConfig g10 = read_mig_parted(file, "all-1g.10gb");
  EXPECT_EQ(mig_parted_uniform_layout(g10, device("A100-40GB")).instances.size(), 4u);
  EXPECT_EQ(mig_parted_uniform_layout(g10, device("A100-80GB")).instances.size(), 7u);
}

TEST(MigParted, FilterByNameOrUnknownId) {
  MigPartedEntry e;
  e.device_filter = {"a100-80gb"};
  EXPECT_TRUE(device_filter_matches(e, device("A100-80GB")));
  EXPECT_FALSE(device_filter_matches(e, device("A100-40GB")));
  e.device_filter = {"0x20B210DE"};  // A100-80GB's stock id
  EXPECT_TRUE(device_filter_matches(e, device("A100-80GB")));
  EXPECT_FALSE(device_filter_matches(e, device("H100-80GB")));
  // An unknown id: decided by whether the entry's devices form a layout on the device.
  e.device_filter = {"0xFFFF10DE"};
  e.mig_devices = {{"1g.18gb", 7}};
  EXPECT_TRUE(device_filter_matches(e, device("H200-141GB")));
  EXPECT_FALSE(device_filter_matches(e, device("H100-80GB")));
  e.device_filter.clear();
  EXPECT_TRUE(device_filter_matches(e, device("V100M32")));
}

// The stock ids of H200 and B200 name their devices: an entry for H200 no longer applies to
// other GPUs its profiles happen to fit (before, an unknown id fell back to that test).
TEST(MigParted, StockIdsOfHopperAndBlackwellNameTheirDevices) {
  MigPartedEntry e;
  e.mig_devices = {{"1g.10gb", 7}};
  e.device_filter = {"0x233510DE"};  // H200 141GB
  EXPECT_FALSE(device_filter_matches(e, device("H100-80GB")));
  EXPECT_FALSE(device_filter_matches(e, device("A100-80GB")));
  e.mig_devices = {{"1g.18gb", 7}};
  EXPECT_TRUE(device_filter_matches(e, device("H200-141GB")));
  e.device_filter = {"0x233B10DE"};  // H200 NVL
  EXPECT_TRUE(device_filter_matches(e, device("H200-141GB")));
  e.device_filter = {"0x290110DE"};  // B200
  EXPECT_TRUE(device_filter_matches(e, device("B200-180GB")));
  EXPECT_FALSE(device_filter_matches(e, device("H200-141GB")));
  e.device_filter = {"0x233010DE"};  // H100-80GB
  EXPECT_TRUE(device_filter_matches(e, device("H100-80GB")));
  EXPECT_FALSE(device_filter_matches(e, device("H200-141GB")));
}

TEST(MigParted, ErrorsNameFileLineAndField) {
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c: [\n"), HasSubstr("m.yaml:4:1"));
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c: [\n"), HasSubstr("invalid YAML"));
  EXPECT_THAT(parse_error(kSpecExample, "nope"),
              HasSubstr("m.yaml: field 'mig-configs': no config named 'nope' (the file has: "
                        "all-balanced)"));
  EXPECT_THAT(parse_error("version: v2\nmig-configs: {c: [{devices: all, mig-enabled: false}]}\n"),
              HasSubstr("m.yaml:1:10: field 'version': expected v1, got 'v2'"));
  EXPECT_THAT(parse_error("mig-configs: {c: [{devices: all, mig-enabled: false}]}\n"),
              HasSubstr("field 'version': missing required field"));
  EXPECT_THAT(parse_error("version: v1\n"), HasSubstr("field 'mig-configs': missing"));
  EXPECT_THAT(parse_error("version: v1\nmig-configs: {}\n"), HasSubstr("at least one config"));
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c: []\n"),
              HasSubstr("m.yaml:3:6: field 'mig-configs.c': expected a non-empty list"));
  EXPECT_THAT(parse_error("version: v1\nextra: 1\nmig-configs: {c: [{devices: all, mig-enabled: "
                          "false}]}\n"),
              HasSubstr("m.yaml:2:1: field 'extra': unexpected field"));
  EXPECT_THAT(parse_error(R"(version: v1
mig-configs:
  c:
    - devices: all
      mig-enabled: true
      mig-devices:
        "1g.5gb": 2
        "big": 1
)"),
              HasSubstr("m.yaml:8:9: field 'mig-configs.c[0].mig-devices': 'big' is not a MIG "
                        "profile name"));
  EXPECT_THAT(parse_error(R"(version: v1
mig-configs:
  c:
    - devices: all
      mig-enabled: true
      mig-devices:
        "1g.5gb": -1
)"),
              HasSubstr("m.yaml:7:19: field 'mig-configs.c[0].mig-devices.1g.5gb': expected an "
                        "integer in [0, 1000000], got '-1'"));
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c:\n    - devices: some\n      "
                          "mig-enabled: false\n"),
              HasSubstr("m.yaml:4:16: field 'mig-configs.c[0].devices': expected 'all' or a list"));
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c:\n    - devices: all\n"),
              HasSubstr("m.yaml:4:7: field 'mig-configs.c[0].mig-enabled': missing required"));
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c:\n    - devices: all\n      "
                          "mig-enabled: maybe\n"),
              HasSubstr("field 'mig-configs.c[0].mig-enabled': expected true or false"));
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c:\n    - devices: all\n      "
                          "mig-enabled: true\n"),
              HasSubstr("mig-devices': required when mig-enabled is true"));
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c:\n    - devices: all\n      "
                          "mig-enabled: false\n      mig-devices: {\"1g.5gb\": 1}\n"),
              HasSubstr("MIG devices given while mig-enabled is false"));
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c:\n    - devices: all\n      "
                          "mig-enabled: false\n      colour: red\n"),
              HasSubstr("m.yaml:6:7: field 'mig-configs.c[0].colour': unexpected field"));
  // A broken config fails the file even when another config is selected.
  EXPECT_THAT(parse_error("version: v1\nmig-configs:\n  c:\n    - devices: all\n      "
                          "mig-enabled: false\n  d:\n    - devices: 3\n      mig-enabled: false\n"),
              HasSubstr("field 'mig-configs.d[0].devices'"));
}

// yaml-cpp keeps both entries of a repeated key: a second config of one name once silently won,
// and a profile given twice in one entry was summed (2 + 5 = 7).
TEST(MigParted, RepeatedNamesAndKeysAreErrors) {
  EXPECT_THAT(parse_error(R"(version: v1
mig-configs:
  c:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.5gb": 7}
  c:
    - devices: all
      mig-enabled: false
)"),
              HasSubstr("m.yaml:7:3: field 'mig-configs.c': 'c' is given twice in one mapping"));
  EXPECT_THAT(parse_error(R"(version: v1
mig-configs:
  c:
    - devices: all
      mig-enabled: true
      mig-devices:
        "1g.5gb": 2
        "1g.5gb": 5
)"),
              HasSubstr("m.yaml:8:9: field 'mig-configs.c[0].mig-devices.1g.5gb': '1g.5gb' is "
                        "given twice in one mapping"));
  EXPECT_THAT(parse_error(R"(version: v1
mig-configs:
  c:
    - devices: all
      mig-enabled: false
      devices: [0]
)"),
              HasSubstr("m.yaml:6:7: field 'mig-configs.c[0].devices': 'devices' is given twice"));
  EXPECT_THAT(parse_error("version: v1\nversion: v1\nmig-configs: {c: [{devices: all, "
                          "mig-enabled: false}]}\n"),
              HasSubstr("m.yaml:2:1: field 'version': 'version' is given twice"));
}

TEST(MigParted, LayoutErrorsPointAtTheEntry) {
  const MigPartedConfig c = parse_mig_parted(R"(version: v1
mig-configs:
  c:
    - devices: all
      mig-enabled: true
      mig-devices:
        "1g.5gb": 8
)",
                                             "m.yaml", "c");
  EXPECT_THAT(input_error_message([&] { mig_parted_uniform_layout(c, device("A100-40GB")); }),
              HasSubstr("m.yaml:7:9: field 'mig-configs.c.mig-devices': {1g.5gb: 8} is not a "
                        "valid layout: more than 7 instance(s) of 1g.5gb"));
}

TEST(MigParted, MissingFile) {
  EXPECT_THAT(input_error_message([] { read_mig_parted("/nonexistent/m.yaml", "c"); }),
              HasSubstr("/nonexistent/m.yaml: cannot read"));
}

}  // namespace
}  // namespace gpumux
