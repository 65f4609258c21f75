// The decision at the end of an instant runs even when the instant's last event is stale. A
// completion at t touches its GPU (its other residents' progress is brought up to t); when a
// stale event (a completion superseded by a rate change) was the last one popped at t, the
// engine used to skip the end-of-instant decision: the touched GPU kept its residents at their
// old rates until some later instant recomputed them without bringing their progress up to date,
// and they finished late. Under mps on two T4 nodes, twelve 100 s jobs 10 s apart hit it: job j5
// finished at 350 s instead of 330 s. --check-invariants flags a completion after the work is
// done, so the run itself is the check.
#include <gtest/gtest.h>

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
      "outputs": {"dir": ")" + (dir / "out").string() + R"("}})");
  const auto r = testing::run_cli({"run", (dir / "s.json").string(), "--quiet",
                                   "--check-invariants"});
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

}  // namespace
}  // namespace gpumux
