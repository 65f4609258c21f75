// Instances held for a job's life (slots), per-instance out of memory, per-GPU-index mig-parted
// layouts and the Kubernetes strategies.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "models/mig/mig_model.h"
#include "sim/base/input_error.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/mig/mig_test_util.h"

namespace gpumux {
namespace {

using mig_test::device;

MigModel model_with(nlohmann::json params) {
  JsonObject o(params, "s.json", "/sharing/params");
  return MigModel(o);
}

std::string slots_error_of(nlohmann::json params) {
  try {
    model_with(std::move(params));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The instance index of the first instance of `profile` in layout 0.
int instance_of(const MigModel& m, const DeviceProfile& d, const std::string& profile) {
  for (int i = 0; i < m.slot_count(d, 0); ++i) {
    if (m.slot_info(d, 0, i).name == profile) return i;
  }
  return -1;
}

TEST(MigSlots, ChooseSlotTakesTheSmallestFreeInstanceThatFits) {
  const DeviceProfile& d = device("A100-40GB");
  const MigModel m = model_with({{"layout", {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}});
  ASSERT_EQ(m.slot_count(d, 0), 4);
  const JobSpec small = mig_test::job(3000);
  const JobSpec medium = mig_test::job(8000);
  const GpuView empty{d, {}, MemoryMiB(0)};
  EXPECT_EQ(m.slot_info(d, 0, m.choose_slot(empty, small)).name, "1g.5gb");
  EXPECT_EQ(m.slot_info(d, 0, m.choose_slot(empty, medium)).name, "2g.10gb");
  // With one 1g.5gb held, the other is next; with both held, a small job takes the 2g.
  const int first_1g = instance_of(m, d, "1g.5gb");
  const JobSpec* one[] = {&small};
  const MemoryMiB mem[] = {MemoryMiB(3000)};
  const int held[] = {first_1g};
  const GpuView one_held{d, one, MemoryMiB(3000), mem, 0, held};
  const int second = m.choose_slot(one_held, small);
  EXPECT_NE(second, first_1g);
  EXPECT_EQ(m.slot_info(d, 0, second).name, "1g.5gb");
  EXPECT_EQ(m.slot_info(d, 0, 0).compute_slices + m.slot_info(d, 0, 1).compute_slices +
                m.slot_info(d, 0, 2).compute_slices + m.slot_info(d, 0, 3).compute_slices,
            7);
}

TEST(MigSlots, ResidentsKeepTheirInstanceSoAdmissionDoesNotReshuffle) {
  const DeviceProfile& d = device("A100-40GB");
  const MigModel m = model_with({{"layout", {"3g.20gb", "2g.10gb"}}});
  // A small job sits in the 3g (say the 2g was busy when it arrived); a 15 GB job needs the 3g.
  const JobSpec small = mig_test::job(3000);
  const JobSpec big = mig_test::job(15000);
  const JobSpec* residents[] = {&small};
  const MemoryMiB mem[] = {MemoryMiB(3000)};
  const int in_3g[] = {instance_of(m, d, "3g.20gb")};
  const int in_2g[] = {instance_of(m, d, "2g.10gb")};
  EXPECT_FALSE(m.admits(GpuView{d, residents, MemoryMiB(3000), mem, 0, in_3g}, big))
      << "a running process cannot move to the 2g to make room";
  EXPECT_TRUE(m.admits(GpuView{d, residents, MemoryMiB(3000), mem, 0, in_2g}, big));
  // A view without slots (built by hand) still asks whether any assignment exists.
  EXPECT_TRUE(m.admits(GpuView{d, residents, MemoryMiB(3000), mem}, big));
}

TEST(MigSlots, RatesFollowTheHeldInstance) {
  const DeviceProfile& d = device("A100-40GB");
  const MigModel m = model_with({{"layout", {"3g.20gb", "1g.5gb"}}});
  const JobSpec hungry = mig_test::job(3000, 1.0, 1.0);  // wants every SM
  const JobSpec* residents[] = {&hungry};
  const MemoryMiB mem[] = {MemoryMiB(3000)};
  double rate[1];
  GpuLoad load;
  const int in_3g[] = {instance_of(m, d, "3g.20gb")};
  const int in_1g[] = {instance_of(m, d, "1g.5gb")};
  m.compute_rates(GpuView{d, residents, MemoryMiB(3000), mem, 0, in_3g}, rate, load);
  EXPECT_NEAR(rate[0], 42.0 / 108.0, 1e-12);
  m.compute_rates(GpuView{d, residents, MemoryMiB(3000), mem, 0, in_1g}, rate, load);
  EXPECT_NEAR(rate[0], 1.0 / 8.0, 1e-12) << "one memory slice of eight binds before 14/108 SMs";
}

TEST(MigSlots, OutgrowingAnInstanceKillsOnlyThatJob) {
  const DeviceProfile& d = device("A100-40GB");
  const MigModel m = model_with({{"layout", {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}});
  const JobSpec a = mig_test::job(4000), b = mig_test::job(9000), c = mig_test::job(4000);
  const JobSpec* residents[] = {&a, &b, &c};
  const int slots[] = {instance_of(m, d, "1g.5gb"), instance_of(m, d, "2g.10gb"),
                       instance_of(m, d, "3g.20gb")};
  const MigProfile& one_g = m.instance_profile(d, 0, slots[0]);
  // a grows one MiB past its 1g.5gb; b sits exactly at its 2g's memory; c is far below.
  const MemoryMiB mem[] = {one_g.memory + MemoryMiB(1), m.instance_profile(d, 0, slots[1]).memory,
                           MemoryMiB(4000)};
  std::uint8_t killed[3] = {0, 0, 0};
  Time recovery = Time::from_seconds(5);
  ASSERT_TRUE(m.memory_fault(GpuView{d, residents, MemoryMiB(0), mem, 0, slots}, killed, recovery));
  EXPECT_EQ(killed[0], 1);
  EXPECT_EQ(killed[1], 0) << "exactly at the limit still fits";
  EXPECT_EQ(killed[2], 0) << "other instances never notice";
  EXPECT_EQ(recovery, Time::zero());
  // Nobody past a limit: no fault.
  const MemoryMiB fine[] = {MemoryMiB(100), MemoryMiB(100), MemoryMiB(100)};
  std::uint8_t none[3] = {0, 0, 0};
  EXPECT_FALSE(m.memory_fault(GpuView{d, residents, MemoryMiB(0), fine, 0, slots}, none, recovery));
}

TEST(MigSlots, SlotFitsFollowsProfileAndMemoryAndRefusesGangs) {
  const DeviceProfile& d = device("A100-40GB");
  const MigModel m = model_with({{"layout", {"3g.20gb", "2g.10gb"}}});
  const int g3 = instance_of(m, d, "3g.20gb"), g2 = instance_of(m, d, "2g.10gb");
  EXPECT_TRUE(m.slot_fits(d, 0, g3, mig_test::job(15000)));
  EXPECT_FALSE(m.slot_fits(d, 0, g2, mig_test::job(15000)));
  EXPECT_FALSE(m.slot_fits(d, 0, g3, mig_test::job(100, 1, 1, "2g.10gb")));
  EXPECT_FALSE(m.slot_fits(d, 0, g3, mig_test::job(100, 1, 1, "", 2)));
  EXPECT_EQ(m.slot_count(device("V100M32"), 0), 0) << "a GPU without MIG is not split";
}

std::string write_half_mig() {
  // One file per process: CTest runs each case as its own process, in parallel, and a file
  // rewritten by one while another reads it was read half-written.
  const std::string path =
      ::testing::TempDir() + "/half-mig-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << "version: v1\n"
                         "mig-configs:\n"
                         "  half-mig:\n"
                         "    - devices: [0, 1]\n"
                         "      mig-enabled: true\n"
                         "      mig-devices: {\"1g.5gb\": 7}\n"
                         "    - devices: [2, 3]\n"
                         "      mig-enabled: false\n"
                         "  two-ways:\n"
                         "    - devices: [0]\n"
                         "      mig-enabled: true\n"
                         "      mig-devices: {\"1g.5gb\": 7}\n"
                         "    - devices: [1]\n"
                         "      mig-enabled: true\n"
                         "      mig-devices: {\"3g.20gb\": 2}\n";
  return path;
}

TEST(MigPartedIndices, EachGpuIndexStartsInItsOwnLayout) {
  const DeviceProfile& d = device("A100-40GB");
  const MigModel m = model_with({{"mig_parted", write_half_mig()}, {"config", "half-mig"}});
  ASSERT_EQ(m.layout_count(d), 2);
  const int mig = m.initial_layout(d, 0);
  const int whole = m.initial_layout(d, 2);
  EXPECT_EQ(m.initial_layout(d, 1), mig);
  EXPECT_EQ(m.initial_layout(d, 3), whole);
  EXPECT_EQ(m.initial_layout(d, 9), whole) << "indices past the last named keep the last layout";
  EXPECT_NE(mig, whole);
  EXPECT_EQ(m.slot_count(d, mig), 7);
  EXPECT_FALSE(m.layout_at(d, whole).mig_enabled);
}

struct SlotRecorder : EngineObserver {
  std::map<std::string, std::vector<GpuIndex>> gpus;
  std::map<std::string, double> finished;
  std::map<std::string, int> kills;
  std::vector<std::string> failed;
  void on_job_started(Time, const ActiveJob& j) override { gpus[j.spec.id] = j.gpus; }
  void on_job_finished(Time now, const ActiveJob& j) override {
    finished[j.spec.id] = now.seconds();
  }
  void on_job_killed(Time, const ActiveJob& j, double) override { ++kills[j.spec.id]; }
  void on_job_failed(Time, const ActiveJob& j) override { failed.push_back(j.spec.id); }
};

JobSpec slot_job(std::string id, int gpus, std::int64_t memory_mib, std::string profile = "") {
  JobSpec j = mig_test::job(memory_mib, 1.0, 0.1, std::move(profile), gpus);
  j.id = std::move(id);
  j.runtime = Time::from_seconds(100);
  return j;
}

SlotRecorder run(const MigModel& model, std::vector<JobSpec> jobs, int gpus = 4) {
  Cluster cluster({device("A100-40GB")}, {NodeSpec{"n0", 0, gpus, 0, true}});
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  mig_test::ListSource source(std::move(jobs));
  EngineOptions options;
  options.retry_limit = 1;
  testing::CheckedEngine engine(cluster, model, scheduler, source, options);
  SlotRecorder r;
  engine.add_observer(&r);
  engine.run();
  return r;
}

TEST(MigPartedIndices, GangsRunOnTheWholeGpusOfAHalfMigNode) {
  const MigModel m = model_with({{"mig_parted", write_half_mig()}, {"config", "half-mig"}});
  SlotRecorder r =
      run(m, {slot_job("gang", 2, 1000), slot_job("s0", 1, 1000), slot_job("s1", 1, 1000)});
  EXPECT_EQ(r.gpus["gang"], (std::vector<GpuIndex>{2, 3}));
  EXPECT_EQ(r.gpus["s0"], std::vector<GpuIndex>{0});
  EXPECT_EQ(r.gpus["s1"], std::vector<GpuIndex>{0}) << "a second 1g.5gb of GPU 0";
  EXPECT_EQ(r.finished.size(), 3u);
}

TEST(MigStrategy, UnknownStrategyAndSingleWithRepartitioningAreErrors) {
  const std::string unknown = slots_error_of({{"layout", {"1g.5gb"}}, {"strategy", "spread"}});
  EXPECT_NE(unknown.find("/sharing/params/strategy"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("expected 'auto', 'mixed' or 'single', got 'spread'"), std::string::npos)
      << unknown;
  EXPECT_NE(slots_error_of({{"layouts", {{"1g.5gb"}}}, {"strategy", "single"}}).find("'single'"),
            std::string::npos);
}

TEST(MigStrategy, SingleNeedsOneProfilePerGpuAndOneLayoutPerNode) {
  const DeviceProfile& d = device("A100-40GB");
  const MigModel mixed_layout =
      model_with({{"layout", {"3g.20gb", "2g.10gb"}}, {"strategy", "single"}});
  try {
    mixed_layout.check_device(d);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("one profile only"), std::string::npos) << e.what();
  }
  const MigModel parted = model_with(
      {{"mig_parted", write_half_mig()}, {"config", "two-ways"}, {"strategy", "single"}});
  EXPECT_THROW(parted.check_device(d), InputError);
  const MigModel uniform =
      model_with({{"layout", mig_test::times(7, "1g.5gb")}, {"strategy", "single"}});
  EXPECT_NO_THROW(uniform.check_device(d));
}

TEST(MigStrategy, MixedSendsUnnamedJobsToWholeGpusAndNamedOnesToTheirProfile) {
  const DeviceProfile& d = device("A100-40GB");
  const MigModel m =
      model_with({{"layout", {{"A100-40GB", {"3g.20gb", "2g.10gb"}}}}, {"strategy", "mixed"}});
  const GpuView empty{d, {}, MemoryMiB(0)};
  EXPECT_FALSE(m.admits(empty, mig_test::job(1000))) << "nvidia.com/gpu: whole GPUs only";
  EXPECT_TRUE(m.admits(empty, mig_test::job(1000, 1, 1, "2g.10gb")));
  EXPECT_FALSE(m.admits(empty, mig_test::job(1000, 1, 1, "1g.5gb")));
  // Placement is blind to memory: a 15 GB job asking for 2g.10gb is placed...
  EXPECT_TRUE(m.admits(empty, mig_test::job(15000, 1, 1, "2g.10gb")));
  const DeviceProfile& whole = device("V100M32");
  const GpuView empty_whole{whole, {}, MemoryMiB(0)};
  EXPECT_TRUE(m.admits(empty_whole, mig_test::job(1000)));
  EXPECT_FALSE(m.admits(empty_whole, mig_test::job(1000, 1, 1, "2g.10gb")));
}

TEST(MigStrategy, MixedPlacementBlindToMemoryEndsInOutOfMemoryForThatJobAlone) {
  const MigModel m =
      model_with({{"layout", {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}, {"strategy", "mixed"}});
  // "liar" asks for a 1g.5gb but peaks at 8 GB: placed (Kubernetes does not see memory), dies
  // at start, retries once and fails. Its neighbour in the other 1g.5gb runs undisturbed.
  SlotRecorder r =
      run(m, {slot_job("liar", 1, 8000, "1g.5gb"), slot_job("honest", 1, 4000, "1g.5gb")}, 1);
  EXPECT_EQ(r.kills["liar"], 2);
  EXPECT_EQ(r.failed, std::vector<std::string>{"liar"});
  EXPECT_EQ(r.kills.count("honest"), 0u);
  EXPECT_NEAR(r.finished["honest"], 100.0, 1e-6);
}

TEST(MigStrategy, SingleTreatsEveryInstanceAsOneGpuAndHonoursANamedProfile) {
  const DeviceProfile& d = device("A100-40GB");
  const MigModel m =
      model_with({{"layout", mig_test::times(2, "3g.20gb")}, {"strategy", "single"}});
  const GpuView empty{d, {}, MemoryMiB(0)};
  EXPECT_TRUE(m.admits(empty, mig_test::job(1000)));
  EXPECT_TRUE(m.admits(empty, mig_test::job(30000))) << "blind to memory";
  EXPECT_TRUE(m.admits(empty, mig_test::job(1000, 1, 1, "3g.20gb")));
  EXPECT_FALSE(m.admits(empty, mig_test::job(1000, 1, 1, "1g.5gb")));
  EXPECT_FALSE(m.admits(empty, mig_test::job(1000, 1, 1, "", 2))) << "no NCCL across instances";
}

}  // namespace
}  // namespace gpumux
