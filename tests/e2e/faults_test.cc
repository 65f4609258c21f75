// Fatal GPU faults through the command line: a rate of 0 is the run without faults byte for
// byte, faults on stay deterministic and draw nothing else, and summary.json and the printed
// summary count them apart from out-of-memory kills. Bad `faults` input exits with code 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

json scenario() {
  return json::parse(R"({
    "name": "faults", "seed": 5,
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 4, "device": "A100-80GB"}]},
    "sharing": {"model": "mps"},
    "scheduler": {"queue": "fifo-backfill", "placement": "best-fit", "retry_limit": 50},
    "trace": {"generator": {"jobs": 150, "arrival": {"process": "poisson", "rate_per_hour": 30},
      "runtime_s": {"lognormal": {"median": 3600, "sigma": 0.5}, "min": 600, "max": 20000},
      "gpus": 1, "memory_mib": {"choice": [8192, 16384]}, "checkpoint_s": 300}},
    "outputs": {"timeseries_interval_s": 300}
  })");
}

struct Outputs {
  int code = -1;
  std::string printed, summary, jobs, series;
};

Outputs run(const json& doc, const testing::fs::path& dir, const std::string& name) {
  testing::write_file(dir / (name + ".json"), doc.dump());
  const auto out = dir / name;
  const auto r =
      testing::run_cli({"run", (dir / (name + ".json")).string(), "--out", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  return {r.code, r.out, testing::read_file(out / "summary.json"),
          testing::read_file(out / "jobs.csv"), testing::read_file(out / "timeseries.csv")};
}

// The rows of jobs.csv as (id, submit_s, gpus, runtime_s), sorted: what the trace drew.
std::vector<std::string> drawn_jobs(const std::string& csv) {
  std::vector<std::string> rows;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::string id, state, submit, gpus, runtime;
    std::getline(cells, id, ',');
    std::getline(cells, state, ',');
    std::getline(cells, submit, ',');
    std::getline(cells, gpus, ',');
    std::getline(cells, runtime, ',');
    rows.push_back(id + ',' + submit + ',' + gpus + ',' + runtime);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(Faults, RateZeroIsByteIdenticalToNoFaults) {
  const auto dir = testing::temp_dir("faults_zero");
  const Outputs without = run(scenario(), dir, "without");
  json zero = scenario();
  zero["faults"] = {{"fatal_per_gpu_hour", 0.0}};
  const Outputs with_zero = run(zero, dir, "zero");
  ASSERT_GT(without.jobs.size(), 1000u);
  EXPECT_EQ(without.summary, with_zero.summary);
  EXPECT_EQ(without.jobs, with_zero.jobs);
  EXPECT_EQ(without.series, with_zero.series);
  const json s = json::parse(without.summary);
  EXPECT_EQ(s["scenario"]["faults"]["fatal_per_gpu_hour"], 0.0);
  EXPECT_EQ(s["metrics"]["failures"]["fatal_faults"], 0);
  EXPECT_THAT(without.printed, ::testing::Not(HasSubstr("fatal GPU faults")));
  testing::fs::remove_all(dir);
}

TEST(Faults, FaultsOnAreDeterministicCountedApartAndDrawNothingElse) {
  const auto dir = testing::temp_dir("faults_on");
  json doc = scenario();
  doc["faults"] = {{"fatal_per_gpu_hour", 0.5}};
  const Outputs a = run(doc, dir, "a");
  const Outputs b = run(doc, dir, "b");
  EXPECT_EQ(a.summary, b.summary);
  EXPECT_EQ(a.jobs, b.jobs);
  EXPECT_EQ(a.series, b.series);

  const json s = json::parse(a.summary);
  const json& f = s["metrics"]["failures"];
  const auto faults = f["fatal_faults"].get<std::uint64_t>();
  EXPECT_GT(faults, 0u);
  EXPECT_EQ(s["engine"]["fatal_faults"], faults);
  // MPS: every fault takes down the whole server's clients, the faulting one at least.
  EXPECT_GE(f["fatal_fault_kills"].get<std::uint64_t>(), faults);
  EXPECT_EQ(f["memory_faults"], 0);  // peak admission: memory never runs out
  EXPECT_EQ(f["memory_fault_kills"], 0);
  EXPECT_EQ(f["jobs_killed"], f["fatal_fault_kills"]);
  EXPECT_THAT(a.printed, HasSubstr("fatal GPU faults"));
  EXPECT_THAT(a.printed, ::testing::Not(HasSubstr("out-of-memory events")));

  // The trace is the same job for job: fault times come from a stream of their own.
  const Outputs off = run(scenario(), dir, "off");
  EXPECT_EQ(drawn_jobs(a.jobs), drawn_jobs(off.jobs));
  EXPECT_NE(a.jobs, off.jobs);
  testing::fs::remove_all(dir);
}

TEST(Faults, BadFaultsInputExitsWithCode2) {
  const auto dir = testing::temp_dir("faults_bad");
  for (const json& faults : {json{{"fatal_per_gpu_hour", -1}}, json{{"fatal_per_hour", 1}},
                             json{{"fatal_per_gpu_hour", "often"}}, json(3)}) {
    json doc = scenario();
    doc["faults"] = faults;
    testing::write_file(dir / "bad.json", doc.dump());
    const auto r = testing::run_cli(
        {"run", (dir / "bad.json").string(), "--out", (dir / "out").string(), "--quiet"});
    EXPECT_EQ(r.code, 2) << faults.dump();
    EXPECT_THAT(r.err, HasSubstr("/faults")) << faults.dump();
    EXPECT_FALSE(testing::fs::exists(dir / "out" / "summary.json"));
  }
  testing::fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
