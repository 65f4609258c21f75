#include "models/mig/layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/mig/mig_test_util.h"

namespace gpumux {
namespace {

using mig_test::device;
using mig_test::times;
using ::testing::HasSubstr;
using mig_test::operator+;

bool places(const std::string& dev, const std::vector<std::string>& profiles) {
  const MigPlacement p = place_profiles(device(dev), profiles);
  if (p.ok) {
    // Whatever place_profiles returns must itself be a valid layout of the same multiset.
    EXPECT_TRUE(is_valid_layout(device(dev), p.instances)) << dev;
    EXPECT_EQ(p.instances.size(), profiles.size());
  }
  return p.ok;
}

std::string layout_message(const std::string& dev, const std::vector<MigInstanceSpec>& l) {
  return layout_error(device(dev), l).value_or("");
}

// docs/gpu-facts.md "MIG": the profile table by class, per 8-slice device.
struct EightSliceNames {
  const char* device;
  const char* g1;    // 1g / 1 slice
  const char* g1me;  // 1g+me
  const char* g1x2;  // 1g / 2 slices
  const char* g2;    // 2g / 2
  const char* g3;    // 3g / 4
  const char* g4;    // 4g / 4
  const char* g7;    // 7g / 8
};

const EightSliceNames kEightSlice[] = {
    {"A100-40GB", "1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"},
    {"A100-80GB", "1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"},
    {"H100-80GB", "1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"},
    {"H100-94GB", "1g.12gb", "1g.12gb+me", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"},
    {"H200-141GB", "1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"},
    {"B200-180GB", "1g.23gb", "1g.23gb+me", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"},
};

class MigEightSliceDevice : public ::testing::TestWithParam<EightSliceNames> {};

TEST_P(MigEightSliceDevice, TableMatchesGpuFacts) {
  const EightSliceNames& n = GetParam();
  const DeviceProfile& d = device(n.device);
  EXPECT_EQ(d.mig_memory_slices, 8);
  EXPECT_EQ(d.mig_compute_slices, 7);
  struct Row {
    const char* name;
    int compute, memory, max_count;
    std::vector<int> offsets;
  };
  const Row rows[] = {{n.g1, 1, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
                      {n.g1me, 1, 1, 1, {0, 1, 2, 3, 4, 5, 6}},
                      {n.g1x2, 1, 2, 4, {0, 2, 4, 6}},
                      {n.g2, 2, 2, 3, {0, 2, 4}},
                      {n.g3, 3, 4, 2, {0, 4}},
                      {n.g4, 4, 4, 1, {0}},
                      {n.g7, 7, 8, 1, {0}}};
  for (const Row& r : rows) {
    const MigProfile* p = find_mig_profile(d, r.name);
    ASSERT_NE(p, nullptr) << n.device << " " << r.name;
    EXPECT_EQ(p->compute_slices, r.compute) << r.name;
    EXPECT_EQ(p->memory_slices, r.memory) << r.name;
    EXPECT_EQ(p->max_count, r.max_count) << r.name;
    EXPECT_EQ(p->start_offsets, r.offsets) << r.name;
  }
}

TEST_P(MigEightSliceDevice, ValidLayouts) {
  const EightSliceNames& n = GetParam();
  const std::string d = n.device;
  EXPECT_TRUE(places(d, times(7, n.g1)));
  EXPECT_TRUE(places(d, {n.g4, n.g3})) << "4g + 3g coexist since R510";
  EXPECT_TRUE(places(d, {n.g3, n.g4})) << "order of the request does not matter";
  EXPECT_TRUE(places(d, times(3, n.g2) + times(1, n.g1)));
  EXPECT_TRUE(places(d, times(2, n.g3)));
  EXPECT_TRUE(places(d, times(4, n.g1x2)));
  EXPECT_TRUE(places(d, {n.g7}));
  EXPECT_TRUE(places(d, {n.g3, n.g2, n.g1x2}));
  EXPECT_TRUE(places(d, {n.g3, n.g2, n.g1, n.g1}));
  EXPECT_TRUE(places(d, times(6, n.g1) + times(1, n.g1me)));
  EXPECT_TRUE(places(d, {}));
}

TEST_P(MigEightSliceDevice, InvalidLayouts) {
  const EightSliceNames& n = GetParam();
  const std::string d = n.device;
  EXPECT_FALSE(places(d, times(8, n.g1)));
  EXPECT_FALSE(places(d, times(5, n.g1x2)));
  EXPECT_FALSE(places(d, times(4, n.g2)));
  EXPECT_FALSE(places(d, times(3, n.g3)));
  EXPECT_FALSE(places(d, times(2, n.g4)));
  EXPECT_FALSE(places(d, {n.g7, n.g1}));
  EXPECT_FALSE(places(d, times(2, n.g1me)));
  EXPECT_FALSE(places(d, {n.g4, n.g4}));
  EXPECT_FALSE(places(d, {n.g4, n.g3, n.g1})) << "8 compute slices";
  EXPECT_FALSE(places(d, {n.g3, n.g3, n.g1})) << "no memory slice left";
  EXPECT_FALSE(places(d, {"9g.99gb"}));
}

TEST_P(MigEightSliceDevice, OffsetRules) {
  const EightSliceNames& n = GetParam();
  const std::string d = n.device;
  EXPECT_TRUE(is_valid_layout(
      device(d), std::vector<MigInstanceSpec>{{n.g1x2, 0}, {n.g1x2, 2}, {n.g1x2, 4}, {n.g1x2, 6}}));
  EXPECT_FALSE(is_valid_layout(device(d), std::vector<MigInstanceSpec>{{n.g3, 2}}));
  EXPECT_FALSE(is_valid_layout(device(d), std::vector<MigInstanceSpec>{{n.g1x2, 1}}));
  EXPECT_FALSE(is_valid_layout(device(d), std::vector<MigInstanceSpec>{{n.g1, 7}}));
  EXPECT_FALSE(is_valid_layout(device(d), std::vector<MigInstanceSpec>{{n.g4, 4}}));
  EXPECT_FALSE(is_valid_layout(device(d), std::vector<MigInstanceSpec>{{n.g2, 0}, {n.g1, 1}}));
  EXPECT_TRUE(is_valid_layout(device(d), std::vector<MigInstanceSpec>{{n.g4, 0}, {n.g3, 4}}));
}

INSTANTIATE_TEST_SUITE_P(MigBuiltIn, MigEightSliceDevice, ::testing::ValuesIn(kEightSlice),
                         [](const auto& test_param) {
                           std::string s = test_param.param.device;
                           for (char& c : s) {
                             if (c == '-') c = '_';
                           }
                           return s;
                         });

TEST(MigLayout, A100_40GBExamplesFromTheBrief) {
  EXPECT_TRUE(places("A100-40GB", times(7, "1g.5gb")));
  EXPECT_TRUE(places("A100-40GB", {"4g.20gb", "3g.20gb"}));
  EXPECT_TRUE(places("A100-40GB", times(3, "2g.10gb") + times(1, "1g.5gb")));
  EXPECT_TRUE(places("A100-40GB", times(2, "3g.20gb")));
  EXPECT_TRUE(places("A100-40GB", times(4, "1g.10gb")));
  EXPECT_FALSE(places("A100-40GB", times(8, "1g.5gb")));
  EXPECT_THAT(layout_message("A100-40GB", {{"3g.20gb", 2}}),
              HasSubstr("3g.20gb may not start at memory slice 2 (allowed: 0, 4)"));
  EXPECT_THAT(layout_message("A100-40GB", {{"1g.10gb", 3}}),
              HasSubstr("1g.10gb may not start at memory slice 3 (allowed: 0, 2, 4, 6)"));
}

TEST(MigLayout, PlacementIsLargestFirstAtTheLowestOffset) {
  const MigPlacement p = place_profiles(device("A100-40GB"), {"1g.5gb", "3g.20gb", "2g.10gb"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.instances,
            (std::vector<MigInstanceSpec>{{"3g.20gb", 0}, {"2g.10gb", 4}, {"1g.5gb", 6}}));
}

TEST(MigLayout, FourGAndThreeGNeedBacktrackingOrder) {
  const MigPlacement p = place_profiles(device("A100-80GB"), {"3g.40gb", "4g.40gb"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.instances, (std::vector<MigInstanceSpec>{{"4g.40gb", 0}, {"3g.40gb", 4}}));
}

TEST(MigLayout, PlacementIsDeterministic) {
  const std::vector<std::string> a = {"1g.10gb", "2g.20gb", "3g.40gb", "1g.10gb"};
  const std::vector<std::string> b = {"3g.40gb", "1g.10gb", "1g.10gb", "2g.20gb"};
  const MigPlacement pa = place_profiles(device("H100-80GB"), a);
  const MigPlacement pb = place_profiles(device("H100-80GB"), b);
  ASSERT_TRUE(pa.ok);
  EXPECT_EQ(pa.instances, pb.instances);
  // 3g at 0 and 2g at 4 leave one 1g slot (1g starts at 0..6): backtracking moves the 3g to 4.
  EXPECT_EQ(pa.instances, (std::vector<MigInstanceSpec>{
                              {"3g.40gb", 4}, {"2g.20gb", 0}, {"1g.10gb", 2}, {"1g.10gb", 3}}));
}

TEST(MigLayout, ErrorsNameTheBrokenRule) {
  EXPECT_THAT(place_profiles(device("A100-40GB"), times(8, "1g.5gb")).error,
              HasSubstr("more than 7 instance(s) of 1g.5gb"));
  EXPECT_THAT(place_profiles(device("A100-40GB"), {"4g.20gb", "3g.20gb", "1g.5gb"}).error,
              HasSubstr("need 8 compute slices; A100-40GB has 7"));
  EXPECT_THAT(place_profiles(device("A100-40GB"), {"1g.5gb+me", "1g.10gb+me"}).error,
              HasSubstr("unknown MIG profile '1g.10gb+me' on A100-40GB"));
  EXPECT_THAT(place_profiles(device("A100-40GB"), {"3g.20gb", "3g.20gb", "1g.5gb"}).error,
              HasSubstr("no placement"));
  EXPECT_THAT(place_profiles(device("V100M32"), {"1g.5gb"}).error,
              HasSubstr("V100M32 does not support MIG"));
  EXPECT_THAT(layout_message("A100-40GB", {{"2g.10gb", 0}, {"1g.5gb", 1}}), HasSubstr("overlaps"));
  EXPECT_TRUE(place_profiles(device("V100M32"), std::vector<std::string>{}).ok);
}

TEST(MigLayout, MediaExtensionsAtMostOnce) {
  EXPECT_TRUE(is_media_extension_profile("1g.10gb+me"));
  EXPECT_FALSE(is_media_extension_profile("1g.10gb"));
  EXPECT_FALSE(places("A30-24GB", {"1g.6gb+me", "2g.12gb+me"}));
  EXPECT_TRUE(places("A30-24GB", {"1g.6gb+me", "2g.12gb", "1g.6gb"}));
}

TEST(MigLayout, A30) {
  const DeviceProfile& d = device("A30-24GB");
  EXPECT_EQ(d.mig_memory_slices, 4);
  EXPECT_EQ(d.mig_compute_slices, 4);
  EXPECT_TRUE(places("A30-24GB", times(4, "1g.6gb")));
  EXPECT_TRUE(places("A30-24GB", times(2, "2g.12gb")));
  EXPECT_TRUE(places("A30-24GB", {"4g.24gb"}));
  EXPECT_TRUE(places("A30-24GB", {"2g.12gb", "1g.6gb", "1g.6gb"}));
  EXPECT_FALSE(places("A30-24GB", {"4g.24gb", "1g.6gb"})) << "4g.24gb stands alone";
  EXPECT_FALSE(places("A30-24GB", times(5, "1g.6gb")));
  EXPECT_FALSE(places("A30-24GB", times(3, "2g.12gb")));
  EXPECT_FALSE(is_valid_layout(d, std::vector<MigInstanceSpec>{{"2g.12gb", 1}}));
  EXPECT_TRUE(is_valid_layout(d, std::vector<MigInstanceSpec>{{"1g.6gb", 3}}));
  EXPECT_FALSE(is_valid_layout(d, std::vector<MigInstanceSpec>{{"1g.6gb", 4}}));
}

TEST(MigLayout, OneGTenGbOffsetsOnA100_40GB) {
  const DeviceProfile& d = device("A100-40GB");
  for (int s = 0; s < 8; ++s) {
    EXPECT_EQ(is_valid_layout(d, std::vector<MigInstanceSpec>{{"1g.10gb", s}}),
              s % 2 == 0 && s <= 6)
        << s;
  }
}

}  // namespace
}  // namespace gpumux
