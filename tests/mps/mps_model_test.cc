#include "models/mps/mps_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "sim/core/service.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;

DeviceProfile gpu16(int client_limit = 48) {
  DeviceProfile d;
  d.name = "G";
  d.memory = MemoryMiB(16384);
  d.sms = 80;
  d.mps_client_limit = client_limit;
  return d;
}

JobSpec job(double sm_util, double sm_share, std::int64_t memory_mib = 1000,
            std::string tenant = "") {
  JobSpec j;
  j.sm_util = sm_util;
  j.sm_share = sm_share;
  j.kernel_length = Time::from_us(500);
  j.memory = MemoryMiB(memory_mib);
  j.tenant = std::move(tenant);
  return j;
}

MpsModel make(const nlohmann::json& params) {
  JsonObject o(params, "s.json", "/sharing/params");
  return MpsModel(o);
}

std::string error_of(const nlohmann::json& params) {
  try {
    make(params);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Residents as pointers plus their summed peak memory, kept alive for a view.
struct Residents {
  std::vector<JobSpec> jobs;
  std::vector<const JobSpec*> ptrs;
  MemoryMiB used;
  explicit Residents(std::vector<JobSpec> js) : jobs(std::move(js)) {
    for (const JobSpec& j : jobs) {
      ptrs.push_back(&j);
      used += j.memory;
    }
  }
  GpuView view(const DeviceProfile& d) const { return GpuView{d, ptrs, used}; }
};

const ModelParameter* find(const std::vector<ModelParameter>& ps, const std::string& name) {
  for (const ModelParameter& p : ps) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

TEST(MpsModel, DefaultsAreDeclaredWithSources) {
  const MpsModel m = make(nlohmann::json::object());
  EXPECT_EQ(m.name(), "mps");
  EXPECT_EQ(m.admission(), MpsAdmission::kPeak);
  const auto ps = m.parameters();
  ASSERT_NE(find(ps, "interference"), nullptr);
  EXPECT_EQ(find(ps, "interference")->value, 0.0);
  EXPECT_THAT(find(ps, "interference")->source, HasSubstr("default"));
  ASSERT_NE(find(ps, "active_thread_percentage"), nullptr);
  EXPECT_EQ(find(ps, "active_thread_percentage")->value, 100.0);
  ASSERT_NE(find(ps, "fault_recovery_s"), nullptr);
  EXPECT_EQ(find(ps, "fault_recovery_s")->value, 30.0);
  EXPECT_THAT(find(ps, "fault_recovery_s")->description, HasSubstr("kills: allocator"));
  ASSERT_NE(find(ps, "fault_teardown_s"), nullptr);
  EXPECT_EQ(find(ps, "fault_teardown_s")->value, 5.0);
  EXPECT_THAT(find(ps, "fault_teardown_s")->source, HasSubstr("measured"));
  ASSERT_NE(find(ps, "server_restart_s"), nullptr);
  EXPECT_EQ(find(ps, "server_restart_s")->value, 0.1);
  for (const ModelParameter& p : ps) {
    // A number has a unit; a switch or a choice is echoed in words without one.
    EXPECT_TRUE(p.kind != ModelParameter::Kind::kNumber || !p.unit.empty()) << p.name;
    EXPECT_FALSE(p.source.empty()) << p.name;
  }
}

TEST(MpsModel, ReadsParametersAndRejectsBadOnes) {
  const MpsModel m = make({{"active_thread_percentage", 50},
                           {"interference", 0.3},
                           {"admission", "average"},
                           {"memory_admission_fraction", 0.5},
                           {"one_user_per_server", true},
                           {"oom", "allocator"},
                           {"fault_recovery_s", 5}});
  EXPECT_DOUBLE_EQ(m.active_thread_fraction(), 0.5);
  EXPECT_DOUBLE_EQ(m.rate_params().interference, 0.3);
  EXPECT_EQ(find(m.parameters(), "interference")->source, "scenario");
  EXPECT_DOUBLE_EQ(find(m.parameters(), "memory_admission_fraction")->value, 0.5);
  EXPECT_THAT(error_of({{"admission", "memory"}}), HasSubstr("admission"));
  EXPECT_THAT(error_of({{"oom", "nobody"}}), HasSubstr("oom"));
  EXPECT_THAT(error_of({{"active_thread_percentage", 0}}), HasSubstr("active_thread_percentage"));
  EXPECT_THAT(error_of({{"interferance", 0.1}}), HasSubstr("interferance"));
  EXPECT_THAT(error_of({{"fault_teardown_s", -1}}), HasSubstr("fault_teardown_s"));
  EXPECT_THAT(error_of({{"server_restart_s", "soon"}}), HasSubstr("server_restart_s"));
  EXPECT_THAT(error_of({{"calibration", "/nonexistent/params.json"}}),
              HasSubstr("/nonexistent/params.json"));
}

TEST(MpsModel, TakesInterferenceFromACalibrationFile) {
  const auto path = std::filesystem::temp_directory_path() / "gpumux_mps_params.json";
  std::ofstream(path) << R"({"model": "mps", "params": {"interference": 0.7,
                           "switch_cost_us": 0, "util_scale": 0.5}})";
  const MpsModel m = make({{"calibration", path.string()}});
  EXPECT_DOUBLE_EQ(m.rate_params().interference, 0.7);
  EXPECT_THAT(find(m.parameters(), "interference")->source, HasSubstr("calibration"));
  // An explicit key wins over the file.
  EXPECT_DOUBLE_EQ(
      make({{"calibration", path.string()}, {"interference", 0.1}}).rate_params().interference,
      0.1);
  // A fit of another model is refused: its interference term means something else.
  const auto other = std::filesystem::temp_directory_path() / "gpumux_timeslice_params.json";
  std::ofstream(other) << R"({"model": "timeslice", "params": {"interference": 0.7}})";
  EXPECT_THAT(error_of({{"calibration", other.string()}}), HasSubstr("field 'model'"));
}

TEST(MpsModel, ReplicasDefaultToAnEqualComputeShare) {
  const MpsModel m = make({{"admission", "replicas"}, {"replicas", 4}});
  EXPECT_DOUBLE_EQ(m.active_thread_fraction(), 0.25);
  EXPECT_THAT(find(m.parameters(), "active_thread_percentage")->source, HasSubstr("Kubernetes"));
  EXPECT_DOUBLE_EQ(
      make({{"admission", "replicas"}, {"active_thread_percentage", 100}}).active_thread_fraction(),
      1.0);
}

TEST(MpsModel, PeakAdmissionNeedsSummedPeakMemoryToFit) {
  const MpsModel m = make(nlohmann::json::object());
  const DeviceProfile d = gpu16();
  const Residents r({job(0.5, 0.5, 8000), job(0.5, 0.5, 6000)});
  EXPECT_TRUE(m.admits(r.view(d), job(0.5, 0.5, 2384)));
  EXPECT_FALSE(m.admits(r.view(d), job(0.5, 0.5, 2385)));
}

TEST(MpsModel, AverageAdmissionBetsOnAFractionOfPeak) {
  const MpsModel m = make({{"admission", "average"}});  // 0.6 x peak must fit
  const DeviceProfile d = gpu16();
  const Residents r({job(0.5, 0.5, 8000), job(0.5, 0.5, 8000)});
  // 0.6 x (16000 + 11000) = 16200 <= 16384: admitted although the peaks need 27000.
  EXPECT_TRUE(m.admits(r.view(d), job(0.5, 0.5, 11000)));
  EXPECT_FALSE(m.admits(r.view(d), job(0.5, 0.5, 11400)));
}

TEST(MpsModel, ReplicasAdmitByCountWithoutMemoryCheck) {
  const MpsModel m = make({{"admission", "replicas"}, {"replicas", 3}});
  const DeviceProfile d = gpu16();
  const Residents two({job(0.5, 0.5, 16000), job(0.5, 0.5, 16000)});
  EXPECT_TRUE(m.admits(two.view(d), job(0.5, 0.5, 16000)));
  const Residents three({job(0.5, 0.5, 10), job(0.5, 0.5, 10), job(0.5, 0.5, 10)});
  EXPECT_FALSE(m.admits(three.view(d), job(0.5, 0.5, 10)));
}

TEST(MpsModel, DeviceClientLimitCapsEveryMode) {
  for (const char* mode : {"peak", "average", "replicas"}) {
    const MpsModel m = make({{"admission", mode}, {"replicas", 100}});
    const DeviceProfile d = gpu16(16);  // pre-Volta limit
    const Residents fifteen(std::vector<JobSpec>(15, job(0.1, 0.1, 10)));
    const Residents sixteen(std::vector<JobSpec>(16, job(0.1, 0.1, 10)));
    EXPECT_TRUE(m.admits(fifteen.view(d), job(0.1, 0.1, 10))) << mode;
    EXPECT_FALSE(m.admits(sixteen.view(d), job(0.1, 0.1, 10))) << mode;
  }
  // A profile without a limit gets the Volta+ 48.
  const MpsModel m = make(nlohmann::json::object());
  const DeviceProfile d = gpu16(0);
  EXPECT_TRUE(
      m.admits(Residents(std::vector<JobSpec>(47, job(0.1, 0.1, 10))).view(d), job(0.1, 0.1, 10)));
  EXPECT_FALSE(
      m.admits(Residents(std::vector<JobSpec>(48, job(0.1, 0.1, 10))).view(d), job(0.1, 0.1, 10)));
}

TEST(MpsModel, OneUserPerServerKeepsTenantsApart) {
  const MpsModel strict = make({{"one_user_per_server", true}});
  const MpsModel open = make(nlohmann::json::object());
  const DeviceProfile d = gpu16();
  const Residents alice({job(0.5, 0.5, 1000, "alice")});
  EXPECT_TRUE(strict.admits(alice.view(d), job(0.5, 0.5, 1000, "alice")));
  EXPECT_FALSE(strict.admits(alice.view(d), job(0.5, 0.5, 1000, "bob")));
  EXPECT_FALSE(strict.admits(alice.view(d), job(0.5, 0.5, 1000, "")));
  EXPECT_TRUE(strict.admits(Residents({}).view(d), job(0.5, 0.5, 1000, "bob")));
  EXPECT_TRUE(open.admits(alice.view(d), job(0.5, 0.5, 1000, "bob")));
}

TEST(MpsModel, RatesSingleJobAndFittingPair) {
  const MpsModel m = make(nlohmann::json::object());
  const DeviceProfile d = gpu16();
  const Residents one({job(0.4, 0.7)});
  double rate = 0;
  GpuLoad load;
  m.compute_rates(one.view(d), std::span<double>(&rate, 1), load);
  EXPECT_NEAR(rate, 1.0, 1e-12);
  EXPECT_NEAR(load.useful_busy, 0.4, 1e-12);
  EXPECT_EQ(load.overhead, 0.0);
  // Summed SM demand 0.4 + 0.5 fits: both run as alone when interference is 0.
  const Residents pair({job(1.0, 0.4), job(0.8, 0.5)});
  double rates[2];
  m.compute_rates(pair.view(d), rates, load);
  EXPECT_NEAR(rates[0], 1.0, 1e-12);
  EXPECT_NEAR(rates[1], 1.0, 1e-12);
  // With contention they slow down, stay in (0, 1].
  const MpsModel slow = make({{"interference", 0.5}});
  slow.compute_rates(pair.view(d), rates, load);
  for (double r : rates) {
    EXPECT_GT(r, 0.0);
    EXPECT_LT(r, 1.0);
  }
  EXPECT_LE(load.useful_busy, 1.0);
}

TEST(MpsModel, RatesStayInRangeForManyClients) {
  const MpsModel m = make({{"interference", 0.2}, {"active_thread_percentage", 60}});
  const DeviceProfile d = gpu16();
  std::vector<JobSpec> js;
  for (int i = 0; i < 48; ++i) js.push_back(job(0.1 + 0.018 * i, 0.2 + 0.015 * i, 100));
  const Residents r(js);
  std::vector<double> rates(js.size());
  GpuLoad load;
  m.compute_rates(r.view(d), rates, load);
  for (double rate : rates) {
    EXPECT_GT(rate, 0.0);
    EXPECT_LE(rate, 1.0);
  }
  EXPECT_GT(load.useful_busy, 0.99);
  EXPECT_LE(load.useful_busy, 1.0);
}

TEST(MpsModel, MemoryFaultUnderAllKillsEveryResidentAndSetsRecovery) {
  const MpsModel m = make({{"admission", "average"}, {"oom", "all"}});
  const DeviceProfile d = gpu16();
  const Residents r({job(0.5, 0.5, 8000), job(0.5, 0.5, 6000), job(0.5, 0.5, 4000)});
  std::vector<std::uint8_t> killed(3, 0);
  Time recovery;
  ASSERT_TRUE(m.memory_fault(r.view(d), killed, recovery));
  EXPECT_EQ(killed, (std::vector<std::uint8_t>{1, 1, 1}));
  EXPECT_EQ(recovery, Time::from_seconds(30));
  // Memory that fits: nobody dies.
  const Residents fits({job(0.5, 0.5, 8000), job(0.5, 0.5, 6000)});
  std::vector<std::uint8_t> none(2, 0);
  EXPECT_FALSE(m.memory_fault(fits.view(d), none, recovery));
}

TEST(MpsModel, MemoryFaultUnderAllocatorKillsOnlyTheLateAllocators) {
  const MpsModel m = make({{"admission", "replicas"}, {"oom", "allocator"}});
  const DeviceProfile d = gpu16();
  const Residents r({job(0.5, 0.5, 8000), job(0.5, 0.5, 9000), job(0.5, 0.5, 4000)});
  std::vector<std::uint8_t> killed(3, 0);
  Time recovery = Time::from_seconds(99);
  ASSERT_TRUE(m.memory_fault(r.view(d), killed, recovery));
  EXPECT_EQ(killed, (std::vector<std::uint8_t>{0, 1, 0}));
  EXPECT_EQ(recovery, Time::zero());
}

TEST(MpsModel, OutOfMemoryByDefaultKillsOnlyTheClientWhoseAllocationFailed) {
  // Measured on an H200: an allocation that does not fit fails for the asker only.
  const MpsModel m = make({{"admission", "replicas"}});
  const DeviceProfile d = gpu16();
  const Residents r({job(0.5, 0.5, 8000), job(0.5, 0.5, 6000), job(0.5, 0.5, 4000)});
  const std::vector<MemoryMiB> memory{MemoryMiB(8000), MemoryMiB(6000), MemoryMiB(4000)};
  // The first client grew; the others did not change. Placement order does not matter.
  const std::vector<std::uint8_t> asked{1, 0, 0};
  std::vector<std::uint8_t> killed(3, 0);
  Time recovery = Time::from_seconds(99);
  ASSERT_TRUE(m.memory_fault(GpuView{d, r.ptrs, r.used, memory, 0, {}, asked}, killed, recovery));
  EXPECT_EQ(killed, (std::vector<std::uint8_t>{1, 0, 0}));
  EXPECT_EQ(recovery, Time::zero());
  // Nobody asked: nobody's allocation failed, nobody dies.
  const std::vector<std::uint8_t> nobody(3, 0);
  EXPECT_FALSE(m.memory_fault(GpuView{d, r.ptrs, r.used, memory, 0, {}, nobody}, killed, recovery));
}

TEST(MpsModel, AFatalFaultTearsDownEveryClientAndTheServerRestarts) {
  const MpsModel m = make(nlohmann::json::object());
  const DeviceProfile d = gpu16();
  const Residents r({job(0.5, 0.5, 1000), job(0.5, 0.5, 1000), job(0.5, 0.5, 1000)});
  std::vector<std::uint8_t> killed(3, 0);
  Time recovery;
  m.fatal_fault(r.view(d), 1, killed, recovery);
  EXPECT_EQ(killed, (std::vector<std::uint8_t>{1, 1, 1}));
  EXPECT_EQ(recovery, Time::from_seconds(5.1));  // 5 s teardown + 0.1 s server restart
  const MpsModel slow = make({{"fault_teardown_s", 2}, {"server_restart_s", 0.5}});
  std::vector<std::uint8_t> again(3, 0);
  slow.fatal_fault(r.view(d), 0, again, recovery);
  EXPECT_EQ(again, (std::vector<std::uint8_t>{1, 1, 1}));
  EXPECT_EQ(recovery, Time::from_seconds(2.5));
  EXPECT_EQ(find(slow.parameters(), "fault_teardown_s")->source, "scenario");
}

TEST(MpsModel, MemoryFaultUnderOffenderKillsOnlyTheJobOverItsPinnedLimit) {
  const MpsModel m = make({{"admission", "replicas"}, {"replicas", 4}, {"oom", "offender"}});
  const DeviceProfile d = gpu16();  // 16384 MiB: 4096 MiB per replica unless a job pins its own
  JobSpec pinned = job(0.5, 0.5, 7000);
  pinned.memory_limit = MemoryMiB(8000);  // its own limit: 7000 MiB in use is within it
  const Residents r({job(0.5, 0.5, 3000), job(0.5, 0.5, 5000), pinned});
  std::vector<std::uint8_t> killed(3, 0);
  Time recovery = Time::from_seconds(99);
  // The GPU has memory left (15000 of 16384), yet the second job passed its 4096 MiB share.
  ASSERT_TRUE(m.memory_fault(r.view(d), killed, recovery));
  EXPECT_EQ(killed, (std::vector<std::uint8_t>{0, 1, 0}));
  EXPECT_EQ(recovery, Time::zero());
  // Everyone within limits: nobody dies.
  const Residents fine({job(0.5, 0.5, 3000), job(0.5, 0.5, 4000)});
  std::vector<std::uint8_t> none(2, 0);
  EXPECT_FALSE(m.memory_fault(fine.view(d), none, recovery));
}

// A service whose MPS client sets CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (services.by_id
// mps_active_thread_percentage): its share caps it as the model-wide one would, only lowers the
// server's, and enters the rate memo's key.
TEST(MpsModel, AServicesOwnThreadShareCapsItsClientAndOnlyLowers) {
  const DeviceProfile d = gpu16();
  auto capped = [](double fraction) {
    JobSpec j = job(1.0, 0.8);
    auto spec = std::make_shared<ServiceSpec>();
    spec->service_ms = 5.0;
    spec->mps_thread_fraction = fraction;
    j.service = spec;
    return j;
  };
  auto alone_rate = [&](const MpsModel& m, const JobSpec& j) {
    const Residents one({j});
    double rate = 0;
    GpuLoad load;
    m.compute_rates(one.view(d), std::span<double>(&rate, 1), load);
    return rate;
  };
  const MpsModel open = make(nlohmann::json::object());
  const MpsModel quarter = make({{"active_thread_percentage", 25}});
  const double capped_rate = alone_rate(open, capped(0.25));
  EXPECT_LT(capped_rate, 1.0);
  EXPECT_DOUBLE_EQ(capped_rate, alone_rate(quarter, job(1.0, 0.8)));
  // The same job without the cap, asked of the same model after it: not the memo's old answer.
  EXPECT_DOUBLE_EQ(alone_rate(open, job(1.0, 0.8)), 1.0);
  // A client cannot raise the server's limit.
  EXPECT_DOUBLE_EQ(alone_rate(quarter, capped(0.5)), alone_rate(quarter, job(1.0, 0.8)));
  EXPECT_DOUBLE_EQ(quarter.thread_fraction(capped(0.5)), 0.25);
  EXPECT_DOUBLE_EQ(quarter.thread_fraction(capped(0.1)), 0.1);
  EXPECT_DOUBLE_EQ(open.thread_fraction(capped(0.0)), 1.0);
  // Under the block schedule the service holds at most its share of the SMs; the other client
  // the server's.
  const Residents pair({capped(0.25), job(0.5, 0.5)});
  BlockContext context;
  ASSERT_TRUE(open.block_context(pair.view(d), 0, context));
  EXPECT_EQ(context.service_cap, 20);  // 25 % of 80 SMs
  ASSERT_EQ(context.others.size(), 1u);
  EXPECT_EQ(context.others[0].cap, 80);
}

}  // namespace
}  // namespace gpumux
