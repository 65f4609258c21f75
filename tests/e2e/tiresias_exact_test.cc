// The Tiresias 60-job trace on a 16-GPU exclusive cluster under strict FIFO: every job's start
// and finish must match a hand-derivable expectation.
//
// With one rack of two 8-GPU nodes and gangs of at most 8, placement can always use any empty
// GPUs, so a job's start is simply the earliest time t >= max(its submit, the previous job's
// start) at which the jobs still running at t leave it enough empty GPUs (a job finishing at t
// frees its GPUs at t). That rule is computed below independently of the engine.
#include <gtest/gtest.h>

#include <map>

#include "tests/e2e/e2e_support.h"
#include "traces/io/csv_reader.h"

namespace gpumux {
namespace {

struct TraceJob {
  std::string id;
  double submit, runtime;
  int gpus;
};

std::vector<TraceJob> read_tiresias(const std::string& path) {
  CsvReader reader(path);
  std::vector<std::string> row;
  reader.next(row);  // header: job_id,num_gpu,submit_time,iterations,model_name,duration,interval
  std::vector<TraceJob> jobs;
  while (reader.next(row)) {
    jobs.push_back({row[0], std::stod(row[2]), std::stod(row[5]), std::stoi(row[1])});
  }
  return jobs;
}

// start/finish per job under strict FIFO on `capacity` interchangeable GPUs.
std::map<std::string, std::pair<double, double>> fifo_by_hand(const std::vector<TraceJob>& jobs,
                                                              int capacity) {
  std::map<std::string, std::pair<double, double>> out;
  std::vector<std::pair<double, int>> running;  // (finish, gpus)
  double previous_start = 0;
  for (const auto& j : jobs) {
    double t = std::max(j.submit, previous_start);
    for (;;) {
      int busy = 0;
      double next_finish = 1e300;
      for (const auto& [finish, gpus] : running) {
        if (finish > t) {
          busy += gpus;
          next_finish = std::min(next_finish, finish);
        }
      }
      if (capacity - busy >= j.gpus) break;
      t = next_finish;
    }
    running.emplace_back(t + j.runtime, j.gpus);
    out[j.id] = {t, t + j.runtime};
    previous_start = t;
  }
  return out;
}

TEST(TiresiasExact, EveryStartAndFinishMatchesTheHandDerivation) {
  const auto src = testing::source_dir();
  const auto trace = (src / "traces/samples/tiresias_60_job.csv").string();
  const auto dir = testing::temp_dir("tiresias");
  const auto scenario = dir / "tiresias.json";
  testing::write_file(scenario, R"({
    "name": "tiresias-exact", "seed": 1,
    "cluster": {"node_groups": [{"nodes": 2, "gpus_per_node": 8, "device": "V100M32"}]},
    "sharing": {"model": "exclusive"},
    "scheduler": {"queue": "fifo", "placement": "first-fit"},
    "trace": {"file": ")" + trace + R"(", "format": "tiresias"}
  })");
  const auto r =
      testing::run_cli({"run", scenario.string(), "--out", (dir / "out").string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;

  const auto jobs = read_tiresias(trace);
  ASSERT_EQ(jobs.size(), 60u);
  const auto expected = fifo_by_hand(jobs, 16);
  // A few values worked out on paper from the first rows of the trace:
  // job 0 (1 GPU) at 0 for 164 s; job 1 (8 GPUs) at 30 for 147 s; job 2 (2 GPUs) at 53.
  EXPECT_EQ(expected.at("0"), std::make_pair(0.0, 164.0));
  EXPECT_EQ(expected.at("1"), std::make_pair(30.0, 177.0));
  EXPECT_EQ(expected.at("2"), std::make_pair(53.0, 180.0));

  CsvReader out((dir / "out/jobs.csv").string());
  std::vector<std::string> row;
  out.next(row);  // header
  int checked = 0;
  while (out.next(row)) {
    ASSERT_EQ(row[1], "finished") << row[0];
    const auto& [start, finish] = expected.at(row[0]);
    EXPECT_DOUBLE_EQ(std::stod(row[5]), start) << "job " << row[0];
    EXPECT_DOUBLE_EQ(std::stod(row[6]), finish) << "job " << row[0];
    ++checked;
  }
  EXPECT_EQ(checked, 60);
  testing::fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
