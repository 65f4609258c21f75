// Checkpoint-restart migration with dynamic MIG repartitioning (repartition.migration): hand-
// derived runs on one GPU with known checkpoint and restart times, the plan that requires the new
// layout to hold the residents, work conservation on random traffic, and bad parameters.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "models/mig/mig_model.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/mig/mig_test_util.h"

namespace gpumux {
namespace {

using mig_test::device;
using mig_test::job;

// Candidates: 0 = seven 1g.5gb (start), 1 = 4g.20gb + 3g.20gb, 2 = the balanced split.
// Hysteresis 0 and 10 s per reconfiguration; `migration` as given (null: drain).
MigModel migrating_model(const nlohmann::json& migration) {
  nlohmann::json repartition = {{"reconfiguration_s", 10}, {"hysteresis_s", 0}};
  if (!migration.is_null()) repartition["migration"] = migration;
  const nlohmann::json params = {{"layouts",
                                  {mig_test::times(7, "1g.5gb"),
                                   {"4g.20gb", "3g.20gb"},
                                   {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}},
                                 {"repartition", repartition}};
  JsonObject o(params, "s.json", "/sharing/params");
  return MigModel(o);
}

Cluster migration_a100_cluster(int gpus) {
  return Cluster({device("A100-40GB")}, {NodeSpec{"n0", 0, gpus, 0, true}});
}

// sm_share 0.1 runs at rate 1 in every A100-40GB instance (1g.5gb gives 14/108 of the SMs and
// 1/8 of the bandwidth), so wall time on a GPU is work, apart from checkpoints and restores.
JobSpec unit_rate_job(const std::string& id, double submit_s, double runtime_s,
                      std::int64_t memory_mib) {
  JobSpec j = job(memory_mib, 1.0, 0.1);
  j.id = id;
  j.submit = Time::from_seconds(submit_s);
  j.runtime = Time::from_seconds(runtime_s);
  return j;
}

// Records each job's stints on GPUs and what migrations and kills reported.
struct Ledger : EngineObserver {
  struct Record {
    double first_start = -1, finish = -1, progress_s = 0, lost_s = 0, reported_lost_s = 0;
    double stint_start = 0, runtime_s = 0, restore_s = 0, interval_s = 0;
    int migrations = 0;
    double max_lost_over_interval = 0;  // the largest loss as a share of the checkpoint interval
  };
  std::map<std::string, Record> jobs;
  double restart_s = 0;  // the plan's restore time, paid by every start after a migration
  int reconfigured = 0;

  void on_job_started(Time now, const ActiveJob& j) override {
    Record& r = jobs[j.spec.id];
    if (r.first_start < 0) r.first_start = now.seconds();
    r.runtime_s = j.spec.runtime.seconds();
    r.interval_s = j.spec.checkpoint_interval.seconds();
    r.stint_start = now.seconds();
    r.restore_s = j.migrations > 0 ? restart_s : 0.0;
  }
  // Progress of the stint ending at `end` after `checkpoint` seconds without progress.
  void close_stint(Record& r, double end, double checkpoint) {
    r.progress_s += std::max(0.0, end - checkpoint - (r.stint_start + r.restore_s));
  }
  void on_job_migrated(Time now, const ActiveJob& j, double lost_us, Time checkpoint) override {
    Record& r = jobs[j.spec.id];
    close_stint(r, now.seconds(), checkpoint.seconds());
    r.lost_s += lost_us / 1e6;
    ++r.migrations;
    if (r.interval_s > 0) {
      r.max_lost_over_interval = std::max(r.max_lost_over_interval, lost_us / 1e6 / r.interval_s);
    }
    r.reported_lost_s = j.lost_work_us / 1e6;
  }
  void on_job_finished(Time now, const ActiveJob& j) override {
    Record& r = jobs[j.spec.id];
    close_stint(r, now.seconds(), 0.0);
    r.finish = now.seconds();
    r.reported_lost_s = j.lost_work_us / 1e6;
  }
  void on_gpu_reconfigured(Time, GpuIndex, Time, Time) override { ++reconfigured; }
};

struct HandRun {
  EngineStats stats;
  Ledger ledger;
};

// One A100-40GB in seven 1g.5gb: `small` (3 GB, 1,000 s) runs from 0; `big` (15 GB, 500 s)
// arrives at 100 s and fits no 1g.5gb, so the GPU is repartitioned to 4g.20gb + 3g.20gb.
HandRun run_hand_case(const nlohmann::json& migration, double interval_s = 0) {
  const MigModel m = migrating_model(migration);
  Cluster c = migration_a100_cluster(1);
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  JobSpec small = unit_rate_job("small", 0, 1000, 3000);
  small.checkpoint_interval = Time::from_seconds(interval_s);
  mig_test::ListSource source({small, unit_rate_job("big", 100, 500, 15000)});
  testing::CheckedEngine engine(c, m, scheduler, source);
  HandRun out;
  out.ledger.restart_s = migration.is_null() ? 0.0 : migration.value("restart_s", 20.0);
  engine.add_observer(&out.ledger);
  out.stats = engine.run();
  return out;
}

TEST(MigMigration, DrainWaitsForTheResidentToFinish) {
  const HandRun run = run_hand_case(nullptr);
  EXPECT_EQ(run.stats.migrations, 0u);
  EXPECT_DOUBLE_EQ(run.ledger.jobs.at("small").finish, 1000);
  EXPECT_DOUBLE_EQ(run.ledger.jobs.at("big").first_start, 1010);  // drain, then 10 s
  EXPECT_DOUBLE_EQ(run.ledger.jobs.at("big").finish, 1510);
}

TEST(MigMigration, CheckpointRestartChargesBothTimesExactly) {
  // At 100 s `small` stops and writes its checkpoint for 5 s; it leaves at 105 with 100 s done,
  // the GPU is repartitioned by 115; `small` restarts first (it heads the fifo queue) in the
  // smaller 3g.20gb, restores for 7 s and runs its last 900 s: 115 + 7 + 900 = 1022. `big` takes
  // the 4g.20gb at 115 and finishes at 615.
  const HandRun run = run_hand_case({{"checkpoint_s", 5}, {"restart_s", 7}});
  EXPECT_EQ(run.stats.migrations, 1u);
  EXPECT_EQ(run.stats.reconfigurations, 1u);
  const Ledger::Record& small = run.ledger.jobs.at("small");
  EXPECT_DOUBLE_EQ(small.first_start, 0);
  EXPECT_DOUBLE_EQ(small.finish, 1022);
  EXPECT_EQ(small.migrations, 1);
  EXPECT_DOUBLE_EQ(small.lost_s, 0);
  EXPECT_DOUBLE_EQ(small.reported_lost_s, 0);
  EXPECT_DOUBLE_EQ(small.progress_s, 1000);  // done + lost = required
  EXPECT_DOUBLE_EQ(run.ledger.jobs.at("big").first_start, 115);
  EXPECT_DOUBLE_EQ(run.ledger.jobs.at("big").finish, 615);
}

TEST(MigMigration, WithoutACheckpointTheWorkSinceTheLastOneIsLost) {
  // `small` checkpoints every 60 s: stopped at 100 s it keeps 60 s and loses 40 s. It leaves at
  // once, the GPU is repartitioned by 110, and `small` restores for 7 s and redoes 940 s:
  // 110 + 7 + 940 = 1057. `big` runs 110-610.
  const HandRun run = run_hand_case({{"checkpoint", false}, {"restart_s", 7}}, 60);
  EXPECT_EQ(run.stats.migrations, 1u);
  EXPECT_EQ(run.stats.killed, 0u);  // a migration is not a kill: no retry is used up
  const Ledger::Record& small = run.ledger.jobs.at("small");
  EXPECT_DOUBLE_EQ(small.finish, 1057);
  EXPECT_DOUBLE_EQ(small.lost_s, 40);
  EXPECT_DOUBLE_EQ(small.reported_lost_s, 40);
  EXPECT_DOUBLE_EQ(small.progress_s, 1040);  // done + lost = required
  EXPECT_DOUBLE_EQ(run.ledger.jobs.at("big").finish, 610);
}

TEST(MigMigration, WithoutAnyCheckpointEverythingDoneIsLost) {
  const HandRun run = run_hand_case({{"checkpoint", false}, {"restart_s", 7}});
  const Ledger::Record& small = run.ledger.jobs.at("small");
  EXPECT_DOUBLE_EQ(small.lost_s, 100);
  EXPECT_DOUBLE_EQ(small.finish, 110 + 7 + 1000);
}

TEST(MigMigration, AResidentAboutToFinishIsNotMoved) {
  // Checkpoint 500 s + restore 500 s is more than the 900 s `small` has left: it stays and the
  // GPU drains as without migration.
  const HandRun run = run_hand_case({{"checkpoint_s", 500}, {"restart_s", 500}});
  EXPECT_EQ(run.stats.migrations, 0u);
  EXPECT_DOUBLE_EQ(run.ledger.jobs.at("small").finish, 1000);
  EXPECT_DOUBLE_EQ(run.ledger.jobs.at("big").first_start, 1010);
}

TEST(MigMigration, TheNewLayoutMustHoldTheResidentsAndTheHead) {
  const MigModel m = migrating_model({{"checkpoint_s", 5}, {"restart_s", 7}});
  Cluster c = migration_a100_cluster(2);
  JobTable jobs;
  GpuViewBuilder views(c, jobs);
  // GPU 0 (seven 1g.5gb) holds five 3 GB jobs: 4g.20gb + 3g.20gb cannot hold them and a 15 GB
  // head, the balanced split neither (four instances). GPU 1 holds three: the balanced split
  // holds them and the head (15 GB in the 3g.20gb).
  for (int k = 0; k < 8; ++k) {
    const JobSlot s = jobs.acquire();
    jobs[s].spec = job(3000, 1.0, 0.1);
    c.add_resident(k < 5 ? 0 : 1, s, MemoryMiB(3000), k < 5 ? k : k - 5);
  }
  Reconfiguration r;
  ASSERT_TRUE(m.plan_reconfiguration(Time::from_seconds(1000), c, views, job(15000), {}, r));
  EXPECT_EQ(r.gpu, 1u);
  EXPECT_EQ(r.layout, 2);
  EXPECT_TRUE(r.migration.enabled);
  EXPECT_TRUE(r.migration.checkpoint);
  EXPECT_EQ(r.migration.checkpoint_time, Time::from_seconds(5));
  EXPECT_EQ(r.migration.restart_time, Time::from_seconds(7));
}

TEST(MigMigration, AGpuWhoseLayoutFitsTheHeadOnceEmptyMayBeRepartitioned) {
  // GPU 0 in the balanced split holds a 15 GB job in its 3g.20gb; a second 15 GB job waits.
  // Draining would wait for the 3g.20gb to free (the layout takes the head once empty), but
  // moving the resident lets 4g.20gb + 3g.20gb hold both now.
  const MigModel drain = migrating_model(nullptr);
  const MigModel move = migrating_model({{"checkpoint_s", 5}});
  Cluster c = migration_a100_cluster(1);
  c.gpu(0).layout = 2;
  JobTable jobs;
  GpuViewBuilder views(c, jobs);
  const JobSlot s = jobs.acquire();
  jobs[s].spec = job(15000, 1.0, 0.1);
  c.add_resident(0, s, MemoryMiB(15000), 0);
  Reconfiguration r;
  EXPECT_FALSE(drain.plan_reconfiguration(Time::from_seconds(1000), c, views, job(15000), {}, r));
  ASSERT_TRUE(move.plan_reconfiguration(Time::from_seconds(1000), c, views, job(15000), {}, r));
  EXPECT_EQ(r.layout, 1);
  EXPECT_EQ(r.migration.restart_time, Time::from_seconds(20));  // the default
}

// Random traffic on four GPUs: every job finishes, the progress it made on GPUs is its runtime
// plus the work it lost, and no migration loses more than the work since its last checkpoint.
void check_conservation(const nlohmann::json& migration, double interval_s) {
  const MigModel m = migrating_model(migration);
  Cluster c = migration_a100_cluster(4);
  Scheduler scheduler("fifo-backfill", make_placement_policy("best-fit"), 64);
  std::mt19937_64 rng(7);
  const std::int64_t memories[] = {3000, 3000, 9000, 15000};
  const std::vector<JobSpec> trace =
      mig_test::random_arrivals(rng, 300, 60, [&](std::mt19937_64& r) {
        JobSpec j = unit_rate_job("", 0,
                                  std::floor(std::uniform_real_distribution<double>(60, 3000)(r)),
                                  memories[r() % 4]);
        j.checkpoint_interval = Time::from_seconds(interval_s);
        return j;
      });
  mig_test::ListSource source(trace);
  testing::CheckedEngine engine(c, m, scheduler, source);
  Ledger ledger;
  ledger.restart_s = migration.value("restart_s", 20.0);
  engine.add_observer(&ledger);
  const EngineStats stats = engine.run();
  EXPECT_EQ(stats.finished, trace.size());
  EXPECT_GT(stats.migrations, 10u) << "the trace should exercise migration";
  EXPECT_GT(ledger.reconfigured, 5);
  double lost = 0;
  for (const auto& [id, r] : ledger.jobs) {
    ASSERT_GE(r.finish, 0) << id;
    // Times are whole microseconds: allow a microsecond per stint.
    EXPECT_NEAR(r.progress_s, r.runtime_s + r.lost_s, 1e-6 * (r.migrations + 1) + 1e-9) << id;
    EXPECT_NEAR(r.reported_lost_s, r.lost_s, 1e-9) << id;
    if (interval_s > 0) {
      EXPECT_LT(r.max_lost_over_interval, 1.0) << id;
    }
    lost += r.lost_s;
  }
  if (migration.value("checkpoint", true)) {
    EXPECT_EQ(lost, 0.0);
  } else {
    EXPECT_GT(lost, 0.0);
  }
}

TEST(MigMigration, CheckpointedMigrationConservesWork) {
  check_conservation({{"checkpoint_s", 5}, {"restart_s", 7}}, 0);
}

TEST(MigMigration, MigrationWithoutCheckpointLosesOnlyWorkSinceTheLastCheckpoint) {
  check_conservation({{"checkpoint", false}, {"restart_s", 7}}, 120);
}

TEST(MigMigration, BadMigrationParametersNameTheKey) {
  const auto rejects = [](const nlohmann::json& migration, const std::string& where) {
    SCOPED_TRACE(migration.dump());
    try {
      migrating_model(migration);
      ADD_FAILURE() << "accepted " << migration.dump();
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr(where));
    }
  };
  rejects({{"checkpoint_sec", 5}}, "/sharing/params/repartition/migration/checkpoint_sec");
  rejects({{"checkpoint_s", -1}}, "/sharing/params/repartition/migration/checkpoint_s");
  rejects({{"restart_s", "fast"}}, "/sharing/params/repartition/migration/restart_s");
  rejects({{"checkpoint", "yes"}}, "/sharing/params/repartition/migration/checkpoint");
  rejects(true, "/sharing/params/repartition/migration");
}

TEST(MigMigration, ParametersAreDeclaredWithTheirSources) {
  const MigModel m = migrating_model({{"restart_s", 30}});
  std::map<std::string, ModelParameter> by_name;
  for (const ModelParameter& p : m.parameters()) by_name[p.name] = p;
  EXPECT_EQ(by_name.at("repartition.migration").value, 1.0);
  EXPECT_EQ(by_name.at("repartition.migration.checkpoint").value, 1.0);
  EXPECT_EQ(by_name.at("repartition.migration.checkpoint_s").value, 10.0);  // default
  EXPECT_EQ(by_name.at("repartition.migration.restart_s").value, 30.0);
  EXPECT_EQ(by_name.at("repartition.migration.restart_s").source, "scenario");
  const MigModel drain = migrating_model(nullptr);
  for (const ModelParameter& p : drain.parameters()) {
    if (p.name == "repartition.migration") {
      EXPECT_EQ(p.value, 0.0);
    }
    EXPECT_NE(p.name, "repartition.migration.restart_s");
  }
}

}  // namespace
}  // namespace gpumux
