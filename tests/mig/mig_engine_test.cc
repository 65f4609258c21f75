// The mig model inside the engine: rates become completion times, instances bound concurrency,
// and jobs no instance or whole GPU can take are rejected.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "models/mig/mig_model.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/mig/mig_test_util.h"

namespace gpumux {
namespace {

struct Recorder : EngineObserver {
  std::map<std::string, double> started, finished;
  std::map<std::string, std::string> rejected;
  int running = 0, most_running = 0;
  void on_job_started(Time now, const ActiveJob& j) override {
    started[j.spec.id] = now.seconds();
    most_running = std::max(most_running, ++running);
  }
  void on_job_finished(Time now, const ActiveJob& j) override {
    finished[j.spec.id] = now.seconds();
    --running;
  }
  void on_job_rejected(Time, const ActiveJob& j, std::string_view reason) override {
    rejected[j.spec.id] = reason;
  }
};

JobSpec engine_job(std::string id, int gpus, double runtime_s, std::int64_t memory_mib,
                   double sm_util, double sm_share) {
  JobSpec j = mig_test::job(memory_mib, sm_util, sm_share, "", gpus);
  j.id = std::move(id);
  j.runtime = Time::from_seconds(runtime_s);
  return j;
}

TEST(MigEngine, StaticBalancedLayoutOnTwoA100_80GB) {
  nlohmann::json params = {{"layout", {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}}};
  JsonObject o(params, "s.json", "/sharing/params");
  const MigModel model(o);
  Cluster cluster({mig_test::device("A100-80GB")}, {NodeSpec{"n0", 0, 2, 0, true}});
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  std::vector<JobSpec> jobs = {
      // 30 GB: only a 3g.40gb holds it; it wants every SM, the instance has 42 of 108.
      engine_job("big", 1, 42, 30000, 0.5, 1.0),
      // Small enough for any instance at full speed.
      engine_job("small", 1, 50, 5000, 1.0, 0.1),
      engine_job("gang", 2, 10, 1000, 1.0, 0.1),   // gangs cannot span MIG instances
      engine_job("huge", 1, 10, 50000, 1.0, 0.1),  // larger than every instance
  };
  for (int i = 0; i < 8; ++i)
    jobs.push_back(engine_job("s" + std::to_string(i), 1, 10, 9000, 1.0, 0.1));
  mig_test::ListSource source(std::move(jobs));
  testing::CheckedEngine engine(cluster, model, scheduler, source);
  Recorder r;
  engine.add_observer(&r);
  const EngineStats stats = engine.run();

  // Busy half the time: only its kernels run 108/42 times longer (the fitted form, no
  // bandwidth field): 42 x (1 + 0.5 (108/42 - 1)) = 75 s (108 s under the roofline).
  EXPECT_NEAR(r.finished["big"], 42.0 * (1.0 + 0.5 * (108.0 / 42.0 - 1.0)), 1e-3);
  EXPECT_NEAR(r.finished["small"], 50.0, 1e-3);
  EXPECT_EQ(r.rejected.count("gang"), 1u);
  EXPECT_EQ(r.rejected.count("huge"), 1u);
  EXPECT_EQ(r.finished.size(), 10u);
  EXPECT_EQ(stats.finished, 10u);
  EXPECT_EQ(r.most_running, 8) << "two GPUs of four instances each";
  // Ten jobs for eight instances: two wait for the first 10-second jobs to leave.
  int waited = 0;
  for (const auto& [id, t] : r.started) waited += t > 0 ? 1 : 0;
  EXPECT_EQ(waited, 2);
}

}  // namespace
}  // namespace gpumux
