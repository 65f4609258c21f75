#include "calibrate/probe/measurement_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace gpumux::calibration {
namespace {

ProbeOptions defaults() {
  ProbeOptions o;
  o.kernel_us = {20, 200, 2000};
  o.sm_share = {0.25, 0.5, 1.0};
  o.duty = {0.5, 1.0};
  o.active_thread_pct = {50};
  o.modes = {"timeslice", "mps"};
  o.budget_s = 1e6;
  return o;
}

int count_prefix(const MeasurementPlan& p, const std::string& prefix) {
  return static_cast<int>(std::count_if(p.items.begin(), p.items.end(), [&](const PlanItem& i) {
    return i.name.rfind(prefix, 0) == 0;
  }));
}

const PlanItem* find(const MeasurementPlan& p, const std::string& name) {
  for (const PlanItem& i : p.items) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

TEST(MeasurementPlan, UnlimitedBudgetKeepsTheFullGrid) {
  const MeasurementPlan p = build_plan(defaults(), {});
  EXPECT_TRUE(p.skipped.empty());
  // 3 shares x 3 lengths x 2 duties, as in the reference data.
  EXPECT_EQ(count_prefix(p, "timeslice-pair"), 18);
  EXPECT_EQ(count_prefix(p, "mps-pair"), 18);
  // The 50% cap binds only for the full-GPU share: 3 lengths x 2 duties.
  EXPECT_EQ(count_prefix(p, "mps_atp50-pair"), 6);
  EXPECT_EQ(count_prefix(p, "timeslice-mixed-pair"), 6);
  EXPECT_EQ(count_prefix(p, "timeslice-triple"), 6);
  EXPECT_EQ(count_prefix(p, "mps-mixed-triple"), 3);
  EXPECT_NE(find(p, "timeslice-memory"), nullptr);
  EXPECT_NE(find(p, "mps-fault"), nullptr);
  const PlanItem* pair0 = find(p, "timeslice-pair0");
  ASSERT_NE(pair0, nullptr);
  ASSERT_EQ(pair0->members.size(), 2u);
  EXPECT_EQ(pair0->members[0].blocks, 33);  // 0.25 of 132 SMs
  EXPECT_DOUBLE_EQ(pair0->members[0].kernel_us, 20);
  EXPECT_DOUBLE_EQ(pair0->members[0].duty, 0.5);
  const PlanItem* atp = find(p, "mps_atp50-pair0");
  ASSERT_NE(atp, nullptr);
  EXPECT_EQ(atp->active_thread_pct, 50);
  EXPECT_EQ(atp->members[0].blocks, 132);
}

TEST(MeasurementPlan, EachAloneRunIsPlannedOncePerModeAndCap) {
  const MeasurementPlan p = build_plan(defaults(), {});
  std::set<std::tuple<std::string, int, int, double, double>> seen;
  for (const PlanItem& item : p.items) {
    for (const MemberSpec& m : item.alone_first) {
      EXPECT_TRUE(
          seen.insert({item.mode, item.active_thread_pct, m.blocks, m.kernel_us, m.duty}).second)
          << item.name << " measures an alone run again";
    }
    // Every member of a set has its alone run planned by then.
    for (const MemberSpec& m : item.members) {
      EXPECT_TRUE(seen.count({item.mode, item.active_thread_pct, m.blocks, m.kernel_us, m.duty}))
          << item.name;
    }
  }
  // Identical pairs of the same config need one alone run; a triple after them none.
  EXPECT_EQ(find(p, "timeslice-pair0")->alone_first.size(), 1u);
  EXPECT_TRUE(find(p, "timeslice-triple0")->alone_first.empty());
}

TEST(MeasurementPlan, ExecutionOrderIsSoloThenTimeslicingThenMpsWithFaultLast) {
  const MeasurementPlan p = build_plan(defaults(), {});
  ASSERT_FALSE(p.items.empty());
  EXPECT_EQ(p.items.front().kind, ItemKind::kSolo);
  size_t last_ts = 0, first_mps = p.items.size();
  for (size_t i = 0; i < p.items.size(); ++i) {
    if (p.items[i].mode == "timeslice") last_ts = i;
    if (p.items[i].mode == "mps") first_mps = std::min(first_mps, i);
  }
  EXPECT_LT(last_ts, first_mps);
  EXPECT_EQ(p.items[last_ts].kind, ItemKind::kFaultContainment);
  EXPECT_EQ(p.items.back().kind, ItemKind::kFaultContainment);
  EXPECT_EQ(p.items.back().mode, "mps");
}

TEST(MeasurementPlan, BudgetSkipsWhatDoesNotFitAndRecordsIt) {
  ProbeOptions o = defaults();
  o.budget_s = 40;
  const MeasurementPlan p = build_plan(o, {});
  EXPECT_FALSE(p.items.empty());
  EXPECT_FALSE(p.skipped.empty());
  EXPECT_LE(p.estimate_s, o.budget_s);
  double sum = PlanTimes{}.reserve_s;
  for (const PlanItem& i : p.items) sum += i.estimate_s;
  EXPECT_NEAR(sum, p.estimate_s, 1e-9);
  for (const SkippedItem& s : p.skipped) {
    EXPECT_NE(s.reason.find("budget"), std::string::npos) << s.reason;
    EXPECT_GT(s.estimate_s, 0);
  }
  // Every candidate is either kept or skipped.
  const MeasurementPlan full = build_plan(defaults(), {});
  EXPECT_EQ(p.items.size() + p.skipped.size(), full.items.size());
}

TEST(MeasurementPlan, BudgetBelowTheReserveKeepsNothing) {
  ProbeOptions o = defaults();
  o.budget_s = 1;
  const MeasurementPlan p = build_plan(o, {});
  EXPECT_TRUE(p.items.empty());
  EXPECT_FALSE(p.skipped.empty());
}

TEST(MeasurementPlan, TightBudgetKeepsWhatFitsInPriorityOrder) {
  ProbeOptions o = defaults();
  o.modes = {"timeslice"};
  o.containment = false;
  o.mixed_pairs = 0;
  o.mixed_triples = 0;
  PlanContext ctx;
  ctx.times.spawn_s = 1;
  ctx.times.reserve_s = 0;
  // Solo (~8 s) plus two identical pairs (each ~3.4 s with its alone run).
  const double solo = build_plan(o, ctx).items.front().estimate_s;
  o.budget_s = solo + 7.0;
  const MeasurementPlan p = build_plan(o, ctx);
  ASSERT_EQ(p.items.size(), 3u);
  EXPECT_EQ(p.items[1].name, "timeslice-pair0");
  EXPECT_EQ(p.items[2].name, "timeslice-pair1");
  for (const PlanItem& i : p.items) {
    if (i.kind == ItemKind::kSet) {
      EXPECT_EQ(i.alone_first.size(), 1u) << i.name;
    }
  }
  // The triples' alone runs were never planned: a kept triple would measure its own.
  o.budget_s = 1e6;
  o.sm_share = {1.0};
  const MeasurementPlan all = build_plan(o, ctx);
  EXPECT_TRUE(find(all, "timeslice-triple0")->alone_first.empty());
}

TEST(MeasurementPlan, ExclusiveProcessModeSkipsTimeSlicingSets) {
  PlanContext ctx;
  ctx.compute_mode = 3;
  const MeasurementPlan p = build_plan(defaults(), ctx);
  EXPECT_EQ(count_prefix(p, "timeslice-"), 0);
  EXPECT_GT(count_prefix(p, "mps-pair"), 0);
  EXPECT_NE(find(p, "solo"), nullptr);
  const bool explained = std::any_of(p.skipped.begin(), p.skipped.end(), [](const SkippedItem& s) {
    return s.name == "timeslice-pair0" && s.reason.find("exclusive-process") != std::string::npos;
  });
  EXPECT_TRUE(explained);
}

TEST(MeasurementPlan, ProhibitedModeKeepsNothing) {
  PlanContext ctx;
  ctx.compute_mode = 2;
  const MeasurementPlan p = build_plan(defaults(), ctx);
  EXPECT_TRUE(p.items.empty());
  EXPECT_NE(p.skipped.front().reason.find("prohibited"), std::string::npos);
}

TEST(MeasurementPlan, MixedSetsAreDeterministicDistinctAndSharedAcrossModes) {
  ProbeOptions o = defaults();
  const MeasurementPlan a = build_plan(o, {});
  const MeasurementPlan b = build_plan(o, {});
  ASSERT_EQ(a.items.size(), b.items.size());
  for (size_t i = 0; i < a.items.size(); ++i) EXPECT_EQ(a.items[i].name, b.items[i].name);
  for (int i = 0; i < 6; ++i) {
    const PlanItem* ts = find(a, "timeslice-mixed-pair" + std::to_string(i));
    const PlanItem* mps = find(a, "mps-mixed-pair" + std::to_string(i));
    ASSERT_NE(ts, nullptr);
    ASSERT_NE(mps, nullptr);
    const MemberSpec &x = ts->members[0], &y = ts->members[1];
    EXPECT_FALSE(x.blocks == y.blocks && x.kernel_us == y.kernel_us && x.duty == y.duty);
    EXPECT_EQ(mps->members[0].blocks, x.blocks);
    EXPECT_EQ(mps->members[1].kernel_us, y.kernel_us);
  }
  o.seed = 2;
  const MeasurementPlan c = build_plan(o, {});
  bool differs = false;
  for (int i = 0; i < 6; ++i) {
    const PlanItem* p1 = find(a, "timeslice-mixed-pair" + std::to_string(i));
    const PlanItem* p2 = find(c, "timeslice-mixed-pair" + std::to_string(i));
    differs |= p1->members[0].blocks != p2->members[0].blocks ||
               p1->members[0].kernel_us != p2->members[0].kernel_us ||
               p1->members[1].duty != p2->members[1].duty;
  }
  EXPECT_TRUE(differs);
}

TEST(MeasurementPlan, TooSmallAPaletteGivesNoMixedSets) {
  ProbeOptions o = defaults();
  o.kernel_us = {200};
  o.sm_share = {1.0};
  o.duty = {1.0};
  const MeasurementPlan p = build_plan(o, {});
  EXPECT_EQ(count_prefix(p, "timeslice-mixed"), 0);
  EXPECT_EQ(count_prefix(p, "timeslice-pair"), 1);
}

TEST(MeasurementPlan, SharesRoundingToTheSameBlocksAreMeasuredOnce) {
  ProbeOptions o = defaults();
  o.sm_share = {0.5, 0.501};
  o.kernel_us = {200};
  o.duty = {1.0};
  PlanContext ctx;
  ctx.sm_count = 100;
  const MeasurementPlan p = build_plan(o, ctx);
  EXPECT_EQ(count_prefix(p, "timeslice-pair"), 1);
}

TEST(MeasurementPlan, SoloPointsCoverFootprintsAndSecondWaves) {
  ProbeOptions o = defaults();
  o.kernel_us = {20};
  const std::vector<MemberSpec> pts = solo_points(o, 132);
  std::vector<int> blocks;
  for (const MemberSpec& m : pts) blocks.push_back(m.blocks);
  EXPECT_EQ(blocks, (std::vector<int>{1, 16, 33, 49, 66, 82, 99, 115, 132, 133, 264}));
  EXPECT_EQ(solo_repeats(20), 2000);
  EXPECT_EQ(solo_repeats(2000), 50);
  EXPECT_EQ(solo_repeats(1e6), 20);
}

TEST(MeasurementPlan, DescribeListsItemsAndSkips) {
  ProbeOptions o = defaults();
  o.budget_s = 30;
  const std::string text = describe_plan(build_plan(o, {}), 132);
  EXPECT_NE(text.find("solo"), std::string::npos);
  EXPECT_NE(text.find("skipped"), std::string::npos);
}

}  // namespace
}  // namespace gpumux::calibration
