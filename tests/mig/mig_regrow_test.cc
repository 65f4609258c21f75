// Re-splitting in place (`regrow`): hand-derived runs on one GPU (a resident grows into a new
// layout when a job ends, or into the larger instance its neighbour freed, or stays when moving
// costs more than it saves; a head that fits nowhere gets the GPU re-split around the resident),
// MISO's rule (objective mean_slowdown), waiting jobs served first, invariants on random traffic,
// and the parameters' echo and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "models/mig/measured_speed.h"
#include "models/mig/mig_model.h"
#include "models/registry.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/mig/mig_test_util.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using mig_test::device;
using mig_test::job;
using json = nlohmann::json;

MigModel model_of(const json& params) {
  JsonObject o(params, "s.json", "/sharing/params");
  return MigModel(o);
}

// Candidates 0 = 3g.20gb + 2g.10gb + 2g.10gb (every GPU starts in it), 1 = 7g.40gb; 10 s to
// remake instances, no hysteresis; regrow with 10 s checkpoints and 20 s restores.
const json kDynamic = {
    {"layouts", {{"3g.20gb", "2g.10gb", "2g.10gb"}, {"7g.40gb"}}},
    {"repartition", {{"reconfiguration_s", 10}, {"hysteresis_s", 0}}},
    {"regrow", {{"checkpoint_s", 10}, {"restart_s", 20}}}};
// A fixed 4g.20gb + 3g.20gb with regrow (promotion into a freed larger instance).
const json kStatic = {{"layout", {"4g.20gb", "3g.20gb"}}, {"regrow", json::object()}};

// A job whose kernels fill the GPU (sm_share 1, always busy): slowed in every instance smaller
// than the whole GPU, so the instance it runs in matters.
JobSpec wide_job(const std::string& id, double submit_s, double runtime_s) {
  JobSpec j = job(9000, 1.0, 1.0);
  j.id = id;
  j.submit = Time::from_seconds(submit_s);
  j.runtime = Time::from_seconds(runtime_s);
  return j;
}

double rate_in(const std::string& profile, const JobSpec& j) {
  const DeviceProfile& d = device("A100-40GB");
  const auto it = std::find_if(d.mig_profiles.begin(), d.mig_profiles.end(),
                               [&](const MigProfile& p) { return p.name == profile; });
  EXPECT_NE(it, d.mig_profiles.end()) << profile;
  return mig_job_rate(j, d, *it, MigSpeedParams{});
}

// Microseconds to do `work_us` at `rate`, as the engine schedules a completion.
double wall_us(double work_us, double rate) { return std::ceil(work_us / rate); }

struct Resplits : EngineObserver {
  struct Call {
    double at_s;
    bool layout_changed;
    std::size_t moved;
    double pause_s, checkpoint_s, unavailable_s;
  };
  std::vector<Call> calls;
  std::map<std::string, double> finish_us, start_us;
  void on_gpu_resplit(Time now, GpuIndex, const Resplit& plan, bool changed,
                      std::size_t moved) override {
    calls.push_back({now.seconds(), changed, moved, plan.pause.seconds(),
                     plan.checkpoint.seconds(), plan.unavailable.seconds()});
  }
  void on_job_started(Time now, const ActiveJob& j) override {
    start_us[j.spec.id] = static_cast<double>(now.us());
  }
  void on_job_finished(Time now, const ActiveJob& j) override {
    finish_us[j.spec.id] = static_cast<double>(now.us());
  }
};

struct OneGpuRun {
  EngineStats stats;
  Resplits seen;
  int final_layout = -1;
};

OneGpuRun run_one_gpu(const MigModel& m, const std::vector<JobSpec>& trace) {
  Cluster c({device("A100-40GB")}, {NodeSpec{"n0", 0, 1, 0, true}});
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  mig_test::ListSource source(trace);
  testing::CheckedEngine engine(c, m, scheduler, source);
  OneGpuRun out;
  engine.add_observer(&out.seen);
  out.stats = engine.run();
  out.final_layout = c.gpu(0).layout;
  return out;
}

TEST(MigRegrow, TheResidentLeftGrowsIntoTheLayoutThatFinishesItSoonest) {
  // `long` and `short` start in the two 2g.10gb (the smallest instances that hold 9 GB). When
  // `short` ends, `long` can stay, move to the 3g.20gb (10 + 20 s) or have the GPU remade as
  // 7g.40gb (10 + 10 + 20 s): the least total time left wins.
  const MigModel m = model_of(kDynamic);
  const JobSpec lng = wide_job("long", 0, 1000), shrt = wide_job("short", 0, 100);
  const OneGpuRun run = run_one_gpu(m, {lng, shrt});
  const double r2 = rate_in("2g.10gb", lng), r3 = rate_in("3g.20gb", lng),
               r7 = rate_in("7g.40gb", lng);
  ASSERT_LT(r2, r3);
  ASSERT_LT(r3, r7);
  const double t_short = wall_us(100e6, r2);
  const double left = 1000e6 - r2 * t_short;
  const double stay = left / r2, to_3g = 30e6 + left / r3, to_7g = 40e6 + left / r7;
  ASSERT_LT(to_7g, std::min(stay, to_3g)) << "the case is meant to remake the GPU";
  EXPECT_NEAR(run.seen.finish_us.at("short"), t_short, 1.0);
  EXPECT_NEAR(run.seen.finish_us.at("long"), t_short + 40e6 + wall_us(left, r7), 2.0);
  ASSERT_EQ(run.seen.calls.size(), 1u);
  EXPECT_TRUE(run.seen.calls[0].layout_changed);
  EXPECT_EQ(run.seen.calls[0].moved, 1u);
  EXPECT_DOUBLE_EQ(run.seen.calls[0].pause_s, 40.0);
  EXPECT_DOUBLE_EQ(run.seen.calls[0].checkpoint_s, 10.0);
  EXPECT_DOUBLE_EQ(run.seen.calls[0].unavailable_s, 10.0);  // the instances are made anew
  EXPECT_EQ(run.final_layout, 1);
  EXPECT_EQ(run.stats.reconfigurations, 1u);
  EXPECT_EQ(run.stats.migrations, 1u);
}

TEST(MigRegrow, WithAFixedLayoutAResidentMovesIntoTheLargerInstanceFreed) {
  // `long` takes the 3g.20gb (the smallest that holds it), `short` the 4g.20gb. When `short`
  // ends, `long` is moved into the 4g.20gb for 10 + 20 s; the layout stays.
  const MigModel m = model_of(kStatic);
  const JobSpec lng = wide_job("long", 0, 2000), shrt = wide_job("short", 0, 100);
  const OneGpuRun run = run_one_gpu(m, {lng, shrt});
  const double r3 = rate_in("3g.20gb", lng), r4 = rate_in("4g.20gb", lng);
  ASSERT_LT(r3, r4);
  const double t_short = wall_us(100e6, r4);
  const double left = 2000e6 - r3 * t_short;
  ASSERT_LT(30e6 + left / r4, left / r3 - MigModel::kRegrowMinGain);
  EXPECT_NEAR(run.seen.finish_us.at("short"), t_short, 1.0);
  EXPECT_NEAR(run.seen.finish_us.at("long"), t_short + 30e6 + wall_us(left, r4), 2.0);
  ASSERT_EQ(run.seen.calls.size(), 1u);
  EXPECT_FALSE(run.seen.calls[0].layout_changed);
  EXPECT_DOUBLE_EQ(run.seen.calls[0].pause_s, 30.0);
  EXPECT_DOUBLE_EQ(run.seen.calls[0].unavailable_s, 0.0);  // no instance is made
  EXPECT_EQ(run.final_layout, 0);
  EXPECT_EQ(run.stats.reconfigurations, 0u);
  EXPECT_EQ(run.stats.migrations, 1u);
}

TEST(MigRegrow, AHeadThatFitsNowhereGetsItsGpuReSplitAroundTheResident) {
  // `first` runs alone in the 7g.40gb; `second` arrives at 100 s and fits no free instance. With
  // migration and regrow the GPU is re-split in place into the two-instance layout that finishes
  // both soonest: `second` (more work) in the 4g.20gb, starting once the instances are made (10 s);
  // `first` paused 40 s (10 s checkpoint, 10 s re-split, 20 s restore) in the 3g.20gb.
  json params = kDynamic;
  params["layouts"] = {{"7g.40gb"}, {"4g.20gb", "3g.20gb"}, {"3g.20gb", "2g.10gb", "2g.10gb"}};
  params["repartition"]["migration"] = json::object();
  const MigModel m = model_of(params);
  const JobSpec first = wide_job("first", 0, 300), second = wide_job("second", 100, 2000);
  const OneGpuRun run = run_one_gpu(m, {first, second});
  const double r7 = rate_in("7g.40gb", first), r3 = rate_in("3g.20gb", first),
               r4 = rate_in("4g.20gb", first);
  const double left = 300e6 - r7 * 100e6;
  ASSERT_LT(40e6 + left / r3 + 2000e6 / r4, 40e6 + left / r4 + 2000e6 / r3);
  EXPECT_EQ(run.seen.start_us.at("second"), 110e6);
  EXPECT_NEAR(run.seen.finish_us.at("first"), 100e6 + 40e6 + wall_us(left, r3), 2.0);
  ASSERT_GE(run.seen.calls.size(), 1u);
  EXPECT_DOUBLE_EQ(run.seen.calls[0].at_s, 100.0);
  EXPECT_TRUE(run.seen.calls[0].layout_changed);
  EXPECT_EQ(run.seen.calls[0].moved, 1u);
  EXPECT_DOUBLE_EQ(run.seen.calls[0].pause_s, 40.0);
  EXPECT_DOUBLE_EQ(run.seen.calls[0].unavailable_s, 10.0);
}

TEST(MigRegrow, AResidentNearItsEndIsNotMoved) {
  // `long` has 10 s of work left in the 3g.20gb when `short` ends: 30 s of moving cannot pay.
  const MigModel m = model_of(kStatic);
  const JobSpec probe = wide_job("probe", 0, 1);
  const double r3 = rate_in("3g.20gb", probe), r4 = rate_in("4g.20gb", probe);
  const double t_short = wall_us(100e6, r4);
  const double runtime_s = std::ceil(r3 * t_short / 1e6) + 10;
  const JobSpec lng = wide_job("long", 0, runtime_s), shrt = wide_job("short", 0, 100);
  const OneGpuRun run = run_one_gpu(m, {lng, shrt});
  const double left = runtime_s * 1e6 - r3 * t_short;
  EXPECT_NEAR(run.seen.finish_us.at("long"), t_short + wall_us(left, r3), 2.0);
  EXPECT_TRUE(run.seen.calls.empty());
  EXPECT_EQ(run.stats.migrations, 0u);
}

TEST(MigRegrow, AJobAtFullSpeedInEveryInstanceIsNeverMoved) {
  // sm_share 0.1 runs at rate 1 in every A100-40GB instance: no instance is faster.
  const MigModel m = model_of(kDynamic);
  JobSpec a = job(9000, 1.0, 0.1), b = job(9000, 1.0, 0.1);
  a.id = "a", b.id = "b";
  a.runtime = Time::from_seconds(1000);
  b.runtime = Time::from_seconds(100);
  const OneGpuRun run = run_one_gpu(m, {a, b});
  EXPECT_TRUE(run.seen.calls.empty());
  EXPECT_EQ(run.seen.finish_us.at("a"), 1000e6);
}

TEST(MigRegrow, AWaitingJobTakesTheFreedInstanceFirst) {
  // `next` waits for an instance; when `short` ends it starts in the 4g.20gb at once and
  // `long` keeps the 3g.20gb. Only when `next` ends is `long` moved into the 4g.20gb.
  const MigModel m = model_of(kStatic);
  const JobSpec lng = wide_job("long", 0, 2000), shrt = wide_job("short", 0, 100),
                next = wide_job("next", 1, 500);
  const OneGpuRun run = run_one_gpu(m, {lng, shrt, next});
  EXPECT_EQ(run.seen.start_us.at("next"), run.seen.finish_us.at("short"));
  ASSERT_EQ(run.seen.calls.size(), 1u);
  EXPECT_EQ(run.seen.calls[0].at_s * 1e6, run.seen.finish_us.at("next"));
  EXPECT_EQ(run.stats.migrations, 1u);
}

TEST(MigRegrow, MisosRuleReSplitsAtEveryJobEndWhateverIsLeft) {
  // `long` and `short` start in the two 2g.10gb; `long` has 10 s of work left when `short` ends.
  // Least total time left keeps it there (40 s of moving cannot pay); MISO's rule re-splits the
  // GPU into the one-instance layout (7g.40gb) all the same, and `long` pays the 40 s.
  const JobSpec probe = wide_job("probe", 0, 1);
  const double r2 = rate_in("2g.10gb", probe), r7 = rate_in("7g.40gb", probe);
  const double t_short = wall_us(100e6, r2);
  const double runtime_s = std::ceil(r2 * t_short / 1e6) + 10;
  const JobSpec lng = wide_job("long", 0, runtime_s), shrt = wide_job("short", 0, 100);
  const double left = runtime_s * 1e6 - r2 * t_short;
  ASSERT_LT(left / r2, 40e6 + left / r7);

  const OneGpuRun kept = run_one_gpu(model_of(kDynamic), {lng, shrt});
  EXPECT_TRUE(kept.seen.calls.empty());
  EXPECT_NEAR(kept.seen.finish_us.at("long"), t_short + wall_us(left, r2), 2.0);

  json miso = kDynamic;
  miso["regrow"]["objective"] = "mean_slowdown";
  const OneGpuRun moved = run_one_gpu(model_of(miso), {lng, shrt});
  ASSERT_EQ(moved.seen.calls.size(), 1u);
  EXPECT_TRUE(moved.seen.calls[0].layout_changed);
  EXPECT_DOUBLE_EQ(moved.seen.calls[0].pause_s, 40.0);
  EXPECT_EQ(moved.final_layout, 1);
  EXPECT_NEAR(moved.seen.finish_us.at("long"), t_short + 40e6 + wall_us(left, r7), 2.0);
}

TEST(MigRegrow, MisosRuleWithAFixedLayoutMovesWheneverTheSlowdownDrops) {
  // As AResidentNearItsEndIsNotMoved, under MISO's rule: `long` moves into the freed 4g.20gb
  // with 10 s left (its slowdown there is lower), pausing 30 s.
  json miso = kStatic;
  miso["regrow"] = {{"objective", "mean_slowdown"}};
  const JobSpec probe = wide_job("probe", 0, 1);
  const double r3 = rate_in("3g.20gb", probe), r4 = rate_in("4g.20gb", probe);
  ASSERT_LT(r3, r4);
  const double t_short = wall_us(100e6, r4);
  const double runtime_s = std::ceil(r3 * t_short / 1e6) + 10;
  const JobSpec lng = wide_job("long", 0, runtime_s), shrt = wide_job("short", 0, 100);
  const OneGpuRun run = run_one_gpu(model_of(miso), {lng, shrt});
  const double left = runtime_s * 1e6 - r3 * t_short;
  ASSERT_EQ(run.seen.calls.size(), 1u);
  EXPECT_FALSE(run.seen.calls[0].layout_changed);
  EXPECT_DOUBLE_EQ(run.seen.calls[0].pause_s, 30.0);
  EXPECT_NEAR(run.seen.finish_us.at("long"), t_short + 30e6 + wall_us(left, r4), 2.0);
  EXPECT_EQ(run.stats.migrations, 1u);
}

TEST(MigRegrow, MisosRuleLeavesAGpuAloneWhenNoCandidateHasOneInstancePerJob) {
  // Candidates with 3 and 7 instances only: when one of two jobs ends, no layout has exactly
  // one instance for the job left, so nothing moves.
  json miso = kDynamic;
  miso["layouts"] = {{"3g.20gb", "2g.10gb", "2g.10gb"}, mig_test::times(7, "1g.5gb")};
  miso["regrow"]["objective"] = "mean_slowdown";
  const OneGpuRun run =
      run_one_gpu(model_of(miso), {wide_job("long", 0, 1000), wide_job("short", 0, 100)});
  EXPECT_TRUE(run.seen.calls.empty());
  EXPECT_EQ(run.stats.migrations, 0u);
}

TEST(MigRegrow, RandomTrafficKeepsEveryInvariant) {
  // Four GPUs, candidate layouts, migration to make room and regrow on job ends, under either
  // objective; the checked engine verifies work, slots and memory at every event.
  for (const char* objective : {"time_left", "mean_slowdown"}) {
    SCOPED_TRACE(objective);
    json params = kDynamic;
    params["layouts"] = {{"3g.20gb", "2g.10gb", "2g.10gb"},
                         {"7g.40gb"},
                         {"4g.20gb", "3g.20gb"},
                         mig_test::times(7, "1g.5gb")};
    params["repartition"]["migration"] = {{"checkpoint_s", 5}, {"restart_s", 7}};
    params["regrow"]["objective"] = objective;
    const MigModel m = model_of(params);
    Cluster c({device("A100-40GB")}, {NodeSpec{"n0", 0, 4, 0, true}});
    Scheduler scheduler("fifo-backfill", make_placement_policy("best-fit"), 64);
    std::mt19937_64 rng(11);
    const std::int64_t memories[] = {3000, 3000, 9000, 15000};
    const std::vector<JobSpec> trace =
        mig_test::random_arrivals(rng, 300, 90, [&](std::mt19937_64& r) {
          JobSpec j = job(memories[r() % 4], std::uniform_real_distribution<double>(0.2, 1.0)(r),
                          std::uniform_real_distribution<double>(0.1, 1.0)(r));
          j.runtime =
              Time::from_seconds(std::floor(std::uniform_real_distribution<double>(60, 3000)(r)));
          return j;
        });
    mig_test::ListSource source(trace);
    testing::CheckedEngine engine(c, m, scheduler, source);
    Resplits seen;
    engine.add_observer(&seen);
    const EngineStats stats = engine.run();
    EXPECT_EQ(stats.finished, trace.size());
    EXPECT_GT(seen.calls.size(), 3u) << "the trace should exercise re-splits";
    std::size_t moved = 0;
    for (const auto& call : seen.calls) moved += call.moved;
    EXPECT_LE(moved, stats.migrations);
  }
}

TEST(MigRegrow, ParametersAreEchoedOnlyWhenGiven) {
  std::map<std::string, ModelParameter> with;
  for (const ModelParameter& p : model_of(kDynamic).parameters()) with[p.name] = p;
  EXPECT_EQ(with.at("regrow").value, 1.0);
  EXPECT_EQ(with.at("regrow.checkpoint_s").value, 10.0);
  EXPECT_EQ(with.at("regrow.restart_s").value, 20.0);
  EXPECT_EQ(with.at("regrow.restart_s").source, "scenario");
  EXPECT_EQ(with.at("regrow.objective").choice, "time_left");
  EXPECT_NE(with.at("regrow.objective").source, "scenario");
  json miso = kDynamic;
  miso["regrow"]["objective"] = "mean_slowdown";
  for (const ModelParameter& p : model_of(miso).parameters()) {
    if (p.name != "regrow.objective") continue;
    EXPECT_EQ(p.choice, "mean_slowdown");
    EXPECT_EQ(p.source, "scenario");
  }
  for (const ModelParameter& p : model_of(kStatic).parameters()) {
    if (p.name == "regrow.restart_s") {
      EXPECT_EQ(p.value, 20.0);
      EXPECT_NE(p.source, "scenario");  // the default
    }
  }
  EXPECT_TRUE(model_of(kStatic).resplits());
  for (const ModelParameter& p : model_of({{"layout", {"7g.40gb"}}}).parameters()) {
    EXPECT_EQ(p.name.rfind("regrow", 0), std::string::npos) << p.name;
  }
  EXPECT_FALSE(model_of({{"layout", {"7g.40gb"}}}).resplits());
}

TEST(MigRegrow, BadParametersNameTheKey) {
  const auto error_of = [](const json& params) {
    return testing::input_error_message([&] { model_of(params); });
  };
  json bad = kStatic;
  bad["regrow"] = {{"restart", 5}};
  EXPECT_THAT(error_of(bad), ::testing::HasSubstr("/sharing/params/regrow/restart"));
  bad["regrow"] = {{"checkpoint_s", -1}};
  EXPECT_THAT(error_of(bad), ::testing::HasSubstr("/sharing/params/regrow/checkpoint_s"));
  bad["regrow"] = {{"objective", "fastest"}};
  EXPECT_THAT(error_of(bad), ::testing::HasSubstr("/sharing/params/regrow/objective"));
  EXPECT_THAT(error_of(bad), ::testing::HasSubstr("mean_slowdown"));
  bad["regrow"] = true;
  EXPECT_THAT(error_of(bad), ::testing::HasSubstr("/sharing/params/regrow"));
  const std::string hybrid = testing::input_error_message([&] {
    const json params = {{"layout", {"3g.20gb", "3g.20gb"}}, {"regrow", json::object()}};
    JsonObject o(params, "s.json", "/sharing/params");
    make_sharing_model("mig+mps", o, "s.json#/sharing/model");
  });
  EXPECT_THAT(hybrid, ::testing::HasSubstr("/sharing/params/regrow"));
  EXPECT_THAT(hybrid, ::testing::HasSubstr("an instance holds several"));
}

}  // namespace
}  // namespace gpumux
