// The decision at the end of an instant runs even when the instant's last event was superseded.
// A completion at t touches its GPU (its other residents' progress is brought up to t); when a
// stale event (a completion superseded by a rate change, then left in the heap) was the last
// one popped at t, the engine used to skip the end-of-instant decision: the touched GPU kept its residents at their
// old rates until some later instant recomputed them without bringing their progress up to date,
// and they finished late. Under mps on two T4 nodes, twelve 100 s jobs 10 s apart hit it: job j5
// finished at 350 s instead of 330 s. --check-invariants flags a completion after the work is
// done, so the run itself is the check.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

namespace fs = testing::fs;

TEST(StaleEvents, TheLastEventOfAnInstantBeingStaleStillRefreshesTouchedGpus) {
  const fs::path dir = testing::temp_dir("stale_event");
  std::string trace = "id,submit_s,gpus,runtime_s\n";
  for (int i = 0; i < 12; ++i) {
    trace += "j" + std::to_string(i) + "," + std::to_string(10 * i) + ",1,100\n";
  }
  testing::write_file(dir / "trace.csv", trace);
  testing::write_file(dir / "s.json", R"({"name": "stale", "seed": 7,
      "cluster": {"node_groups": [{"name": "t4", "nodes": 2, "gpus_per_node": 2,
                                   "device": "T4"}]},
      "sharing": {"model": "mps"},
      "trace": {"file": "trace.csv", "defaults": {"memory_mib": 4096}},
      "outputs": {"dir": ")" + (dir / "out").string() +
                                          R"("}})");
  const auto r =
      testing::run_cli({"run", (dir / "s.json").string(), "--quiet", "--check-invariants"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("invariant"), std::string::npos) << r.err;
  const std::string jobs = testing::read_file(dir / "out" / "jobs.csv");
  const auto at = jobs.find("\nj5,finished,");
  ASSERT_NE(at, std::string::npos) << jobs;
  // id,state,submit_s,gpus,runtime_s,start_s,finish_s: j5 starts at 50 and, with its progress
  // kept up to date at every rate change, finishes at 330 s (350 s before the fix).
  EXPECT_EQ(jobs.substr(at + 1, jobs.find('\n', at + 1) - at - 1).substr(0, 32),
            "j5,finished,50,1,100,50,330,0,28");
  fs::remove_all(dir);
}

// Two jobs time-sliced on one GPU from 0 s: the long one's first completion event is where it
// would finish at the shared rate (about 2,000 s); when the short one leaves it speeds up and
// finishes near 1,010 s, and that first event is superseded. The run used to end at it (it
// stayed in the heap; now it is replaced in place and nothing stale pends):
// its end time, makespan and every GPU-time share (allocation, SM-busy, overhead: shares of
// GPUs x makespan) counted an idle tail that no job ran in. `limit_s` > 0 adds a time limit.
nlohmann::json run_shared_pair(const fs::path& dir, int limit_s, std::string& jobs_csv) {
  testing::write_file(dir / "trace.csv",
                      "id,submit_s,gpus,runtime_s\nlong,0,1,1000\nshort,0,1,10\n");
  std::string scenario = R"({"name": "pair", "seed": 3,
      "cluster": {"node_groups": [{"name": "t4", "nodes": 1, "gpus_per_node": 1,
                                   "device": "T4"}]},
      "sharing": {"model": "timeslice"},
      "trace": {"file": "trace.csv", "defaults": {"memory_mib": 4096, "sm_util": 0.9}},)";
  if (limit_s > 0) scenario += R"("limits": {"max_time_s": )" + std::to_string(limit_s) + "},";
  scenario += R"("outputs": {"dir": ")" + (dir / "out").string() + R"("}})";
  testing::write_file(dir / "s.json", scenario);
  const auto r =
      testing::run_cli({"run", (dir / "s.json").string(), "--quiet", "--check-invariants"});
  EXPECT_EQ(r.code, 0) << r.err;
  jobs_csv = testing::read_file(dir / "out" / "jobs.csv");
  return nlohmann::json::parse(testing::read_file(dir / "out" / "summary.json"));
}

// The finish time (s) of job `id` in jobs.csv (column 7), or -1.
double finish_of(const std::string& jobs, const std::string& id) {
  const auto at = jobs.find("\n" + id + ",finished,");
  if (at == std::string::npos) return -1.0;
  std::string row = jobs.substr(at + 1, jobs.find('\n', at + 1) - at - 1);
  for (int comma = 0; comma < 6; ++comma) row = row.substr(row.find(',') + 1);
  return std::stod(row.substr(0, row.find(',')));
}

TEST(StaleEvents, ARunEndsAtItsLastRealEventNotAtAStaleOne) {
  const fs::path dir = testing::temp_dir("stale_end");
  std::string jobs;
  const nlohmann::json summary = run_shared_pair(dir, 0, jobs);
  const double last = finish_of(jobs, "long");
  ASSERT_GT(last, 1000.0) << jobs;
  ASSERT_LT(last, 1100.0) << jobs;  // it ran alone after the short one left
  // The superseded completion was replaced in place, not left to pop.
  EXPECT_EQ(summary["engine"]["stale_events"].get<int>(), 0);
  EXPECT_EQ(summary["engine"]["events"].get<int>(), 4);  // two arrivals, two completions
  EXPECT_DOUBLE_EQ(summary["engine"]["end_time_s"].get<double>(), last);
  EXPECT_DOUBLE_EQ(summary["metrics"]["makespan_s"].get<double>(), last);
  // The one GPU held a job from 0 s to the end: allocation ratio 1, not diluted by a tail.
  EXPECT_DOUBLE_EQ(summary["metrics"]["gpu_allocation_ratio"].get<double>(), 1.0);
  fs::remove_all(dir);
}

TEST(StaleEvents, AStaleEventPastTheTimeLimitDoesNotStopTheRunThere) {
  const fs::path dir = testing::temp_dir("stale_limit");
  std::string jobs;
  // The limit falls after the real end (~1,010 s) and before the stale event (~2,000 s).
  const nlohmann::json summary = run_shared_pair(dir, 1500, jobs);
  EXPECT_FALSE(summary["engine"]["stopped_at_time_limit"].get<bool>());
  EXPECT_EQ(summary["metrics"]["jobs"]["finished"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(summary["engine"]["end_time_s"].get<double>(), finish_of(jobs, "long"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
