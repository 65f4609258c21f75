#include "analysis/plan/mig_layouts.h"

#include <gtest/gtest.h>

#include "models/device_registry.h"
#include "sim/base/input_error.h"

namespace gpumux {
namespace {

std::vector<PlanDevice> a100_nodes(int gpus_per_node) {
  return {{DeviceRegistry::with_builtins().get("A100-80GB", "test"), gpus_per_node}};
}

const nlohmann::json kExample = {{"layout", {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}}};

// The generated set on A100-80GB: the scenario's, one per profile filled, half the GPUs whole.
TEST(MigLayouts, GeneratedCandidatesAreTheScenariosThenOnePerProfileThenHalfWhole) {
  const auto c = mig_layout_candidates("mig", kExample, ".", a100_nodes(8), {});
  std::vector<std::string> names;
  for (const auto& l : c) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "3g.40gb + 2g.20gb + 2x 1g.10gb", "7x 1g.10gb", "4x 1g.20gb",
                       "3x 2g.20gb + 1g.20gb", "2x 3g.40gb", "4g.40gb + 3g.40gb", "7g.80gb",
                       "GPUs 0-3: 3g.40gb + 2g.20gb + 2x 1g.10gb; GPUs 4-7 whole"}));
  EXPECT_EQ(c[0].origin, "scenario");
  EXPECT_EQ(c[0].params, kExample);
  EXPECT_EQ(c[6].params, (nlohmann::json{{"layout", {"7g.80gb"}}}));
  // The half-whole mix is an inline mig-parted config the model reads.
  const LayoutCapacity half = layout_capacity("mig", c[7].params, ".", a100_nodes(8));
  EXPECT_TRUE(half.whole_gpus);
  EXPECT_EQ(half.largest.mib(), 81920);
  EXPECT_TRUE(half.by_device["A100-80GB"][7].is_null());
  EXPECT_EQ(half.by_device["A100-80GB"][0].size(), 4u);
}

TEST(MigLayouts, OtherModesAndModels) {
  EXPECT_EQ(mig_layout_candidates("mig", kExample, ".", a100_nodes(8),
                                  parse_mig_layouts_option("scenario"))
                .size(),
            1u);
  const auto list = mig_layout_candidates("mig+mps", kExample, ".", a100_nodes(8),
                                          parse_mig_layouts_option("7g.80gb; whole"));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].name, "7g.80gb");
  EXPECT_EQ(list[1].name, "whole");
  EXPECT_EQ(list[0].origin, "--mig-layouts");
  // Repartitioning params are one candidate: the model searches its own layouts.
  const nlohmann::json repartition = {{"layouts", {{"7g.80gb"}, {"3g.40gb", "3g.40gb"}}}};
  const auto own = mig_layout_candidates("mig", repartition, ".", a100_nodes(8), {});
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].name, "repartitions: 7g.80gb | 2x 3g.40gb");
  // A model without layouts, and a GPU of one per node (no half to keep whole).
  EXPECT_EQ(mig_layout_candidates("mps", nlohmann::json::object(), ".", a100_nodes(8), {}).size(),
            1u);
  EXPECT_EQ(mig_layout_candidates("mig", kExample, ".", a100_nodes(1), {}).size(), 7u);
  for (const char* bad : {"", "3g.40gb+", ";"}) {
    EXPECT_THROW(parse_mig_layouts_option(bad), InputError) << bad;
  }
}

// The notation plan prints a layout in ("3x 2g.20gb + 1g.20gb") is one --mig-layouts takes.
TEST(MigLayouts, TheOptionTakesTheNotationPlanPrints) {
  const MigLayoutRequest r = parse_mig_layouts_option("3x 2g.20gb + 1g.20gb; 2x3g.40gb; whole");
  ASSERT_EQ(r.list.size(), 3u);
  EXPECT_EQ(r.list[0], (std::vector<std::string>{"2g.20gb", "2g.20gb", "2g.20gb", "1g.20gb"}));
  EXPECT_EQ(r.list[1], (std::vector<std::string>{"3g.40gb", "3g.40gb"}));
  EXPECT_TRUE(r.list[2].empty());
  const auto printed = mig_layout_candidates("mig", kExample, ".", a100_nodes(8), r);
  EXPECT_EQ(printed[0].name, "3x 2g.20gb + 1g.20gb") << "read back as printed";
  for (const char* bad : {"0x 1g.10gb", "9x 1g.10gb", "2x", "2x +1g.10gb"}) {
    EXPECT_THROW(parse_mig_layouts_option(bad), InputError) << bad;
  }
}

}  // namespace
}  // namespace gpumux
