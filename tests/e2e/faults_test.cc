// Fatal GPU faults through the command line: a rate of 0 is the run without faults byte for
// byte, faults on stay deterministic and draw nothing else, and summary.json and the printed
// summary count them apart from out-of-memory kills. Bad `faults` input exits with code 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

json faults_scenario() {
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

Outputs run_faults(const json& doc, const testing::fs::path& dir, const std::string& name) {
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
  const Outputs without = run_faults(faults_scenario(), dir, "without");
  json zero = faults_scenario();
  zero["faults"] = {{"fatal_per_gpu_hour", 0.0}};
  const Outputs with_zero = run_faults(zero, dir, "zero");
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
  json doc = faults_scenario();
  doc["faults"] = {{"fatal_per_gpu_hour", 0.5}};
  const Outputs a = run_faults(doc, dir, "a");
  const Outputs b = run_faults(doc, dir, "b");
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
  const Outputs off = run_faults(faults_scenario(), dir, "off");
  EXPECT_EQ(drawn_jobs(a.jobs), drawn_jobs(off.jobs));
  EXPECT_NE(a.jobs, off.jobs);
  testing::fs::remove_all(dir);
}

TEST(Faults, BadFaultsInputExitsWithCode2) {
  const auto dir = testing::temp_dir("faults_bad");
  for (const json& faults : {json{{"fatal_per_gpu_hour", -1}}, json{{"fatal_per_hour", 1}},
                             json{{"fatal_per_gpu_hour", "often"}}, json(3)}) {
    json doc = faults_scenario();
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

// Three jobs on one GPU, all resident from t=0, the second faulting 100 s after its start.
json injected_scenario(const std::string& model, const testing::fs::path& dir) {
  testing::write_file(dir / "three.csv",
                      "id,submit_s,gpus,runtime_s,sm_util,sm_share,memory_mib\n"
                      "a,0,1,1000,0.3,0.3,1024\n"
                      "b,0,1,1000,0.3,0.3,1024\n"
                      "c,0,1,1000,0.3,0.3,1024\n");
  return json{{"name", "inject"},
              {"seed", 1},
              {"cluster",
               {{"node_groups", {{{"nodes", 1}, {"gpus_per_node", 1}, {"device", "H200-141GB"}}}}}},
              {"sharing", {{"model", model}}},
              {"scheduler", {{"retry_limit", 0}}},
              {"trace", {{"file", (dir / "three.csv").string()}}},
              {"faults", {{"inject", {{{"job", "b"}, {"after_s", 100}}}}}}};
}

// jobs.csv rows as id -> (state, jct_s; -1 when empty, as for a failed job).
std::map<std::string, std::pair<std::string, double>> states(const std::string& csv) {
  std::map<std::string, std::pair<std::string, double>> out;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream c(line);
    for (std::string cell; std::getline(c, cell, ',');) cells.push_back(cell);
    out[cells[0]] = {cells[1], cells[8].empty() ? -1.0 : std::stod(cells[8])};
  }
  return out;
}

TEST(Faults, InjectedFaultUnderMpsTearsDownEveryClientAtItsInstant) {
  const auto dir = testing::temp_dir("faults_inject_mps");
  const Outputs o = run_faults(injected_scenario("mps", dir), dir, "mps");
  const auto st = states(o.jobs);
  // All die at the fault (its instant is checked in tests/replay/replay_check_test.cc).
  for (const char* id : {"a", "b", "c"}) EXPECT_EQ(st.at(id).first, "failed") << id;
  const json s = json::parse(o.summary);
  EXPECT_EQ(s["metrics"]["failures"]["fatal_faults"], 1);
  EXPECT_EQ(s["metrics"]["failures"]["fatal_fault_kills"], 3);
  EXPECT_EQ(s["scenario"]["faults"]["inject"][0]["job"], "b");
  EXPECT_EQ(s["scenario"]["faults"]["inject"][0]["after_s"], 100.0);
  testing::fs::remove_all(dir);
}

TEST(Faults, InjectedFaultUnderTimeSlicingKillsOnlyTheFaultingJob) {
  const auto dir = testing::temp_dir("faults_inject_ts");
  const Outputs o = run_faults(injected_scenario("timeslice", dir), dir, "ts");
  const auto st = states(o.jobs);
  EXPECT_EQ(st.at("b").first, "failed");
  EXPECT_EQ(st.at("a").first, "finished");
  EXPECT_EQ(st.at("c").first, "finished");
  EXPECT_GT(st.at("a").second, 1000.0);  // shared with b until the fault, then with c
  const json s = json::parse(o.summary);
  EXPECT_EQ(s["metrics"]["failures"]["fatal_fault_kills"], 1);
  testing::fs::remove_all(dir);
}

TEST(Faults, InjectedFaultOfAJobNotInTheTraceIsBadInput) {
  const auto dir = testing::temp_dir("faults_inject_bad");
  struct Case {
    json inject;
    std::string pointer, says;
  };
  const std::vector<Case> cases = {
      {json::array({{{"job", "zz"}, {"after_s", 1}}}), "#/faults/inject/0/job", "never started"},
      {json::array({{{"job", "a"}, {"after_s", 1}}, {{"job", "a"}, {"after_s", 2}}}),
       "#/faults/inject/1/job", "already given a fault"},
      {json::array({{{"job", "a"}, {"after_s", -1}}}), "#/faults/inject/0/after_s", "after_s"},
      {json::array({{{"job", "a"}}}), "#/faults/inject/0", "after_s"},
      {json::array({3}), "#/faults/inject/0", "expected an object"},
      {json("a"), "#/faults/inject", "expected an array"},
  };
  for (const Case& c : cases) {
    json doc = injected_scenario("mps", dir);
    doc["faults"]["inject"] = c.inject;
    testing::write_file(dir / "bad.json", doc.dump());
    const auto r = testing::run_cli(
        {"run", (dir / "bad.json").string(), "--out", (dir / "out").string(), "--quiet"});
    EXPECT_EQ(r.code, 2) << c.inject.dump();
    EXPECT_THAT(r.err, HasSubstr(c.pointer)) << c.inject.dump() << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.says)) << c.inject.dump() << ": " << r.err;
    EXPECT_FALSE(testing::fs::exists(dir / "out"));
  }
  testing::fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
