// mig-parted files on hostile input: aliases that expand without end are cut off at a stated
// node count with a clear error; profile names are checked by form without a regex engine.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "models/mig/mig_parted.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using gpumux::testing::input_error_message;
using ::testing::HasSubstr;

// An entry anchored once, a list of `width` aliases to it, and `configs` configs that all alias
// that list: width x configs entries once the aliases are followed, from a file of a few KB.
std::string alias_bomb(int width, int configs) {
  std::string text =
      "version: v1\nmig-configs:\n  c0: &list\n    - &e {devices: all, mig-enabled: true, "
      "mig-devices: {\"1g.10gb\": 7}}\n";
  for (int i = 1; i < width; ++i) text += "    - *e\n";
  for (int c = 1; c < configs; ++c) text += "  c" + std::to_string(c) + ": *list\n";
  return text;
}

TEST(MigPartedLimits, AliasBombIsAnErrorNamingTheNodeLimit) {
  const std::string text = alias_bomb(1000, 5000);  // 5,000,000 entries, ~70 KB
  ASSERT_LT(text.size(), 100'000u);
  const std::string error = input_error_message([&] { parse_mig_parted(text, "m.yaml", "c0"); });
  EXPECT_THAT(error, HasSubstr("m.yaml:"));
  EXPECT_THAT(error, HasSubstr("more than 100000 nodes once its aliases are followed"));
}

TEST(MigPartedLimits, AliasesWithinTheLimitAreRead) {
  // 50 configs of 200 aliased entries: 10,000 entries of 4 nodes, within the limit.
  const MigPartedConfig c = parse_mig_parted(alias_bomb(200, 50), "m.yaml", "c49");
  ASSERT_EQ(c.entries.size(), 200u);
  EXPECT_TRUE(c.entries.back().all_devices);
  ASSERT_EQ(c.entries.back().mig_devices.size(), 1u);
  EXPECT_EQ(c.entries.back().mig_devices[0].second, 7);
}

std::string one_profile(const std::string& profile) {
  return "version: v1\nmig-configs:\n  c:\n    - devices: all\n      mig-enabled: true\n      "
         "mig-devices: {\"" +
         profile + "\": 1}\n";
}

TEST(MigPartedLimits, ProfileNamesAreCheckedByForm) {
  for (const char* good : {"1g.10gb", "3g.40gb", "1c.3g.40gb", "1g.10gb+me", "1g.20gb+me-gfx",
                           "12g.141gb"}) {
    EXPECT_NO_THROW(parse_mig_parted(one_profile(good), "m.yaml", "c")) << good;
  }
  for (const char* bad : {"1g10gb", "g.10gb", "1g.gb", "1g.10gb+", "1g.10gbx", "1c3g.40gb",
                          "1c.g.40gb", "1g.10GB", "1g.10gb+ME", " 1g.10gb", ""}) {
    EXPECT_THAT(input_error_message([&] { parse_mig_parted(one_profile(bad), "m.yaml", "c"); }),
                HasSubstr("is not a MIG profile name"))
        << bad;
  }
}

}  // namespace
}  // namespace gpumux
