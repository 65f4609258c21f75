// Hostile input through the command line: each case once crashed, exited 1 ("internal error")
// or produced nonsense with exit 0. Each must now be exit 2 with a message naming the place, and
// leave no output behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A valid scenario on one 16-GPU node reading trace.csv, with `extra` keys appended.
std::string hostile_scenario(const std::string& extra = "") {
  return R"({"name": "hostile",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 16, "device": "A100-40GB"}]},
    "trace": {"file": "trace.csv"})" +
         extra + "}";
}

class Hostile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::temp_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    testing::write_file(dir_ / "trace.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\n");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    testing::write_file(dir_ / name, text);
    return (dir_ / name).string();
  }
  fs::path dir_;
};

TEST_F(Hostile, DeeplyNestedScenarioIsBadInputNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const auto s = write("deep.json", R"({"name": "x", "description": )" + deep + "}");
  const auto r = run_cli({"validate", s});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "deep.json:1:")) << r.err;
  EXPECT_TRUE(has(r.err, "nested deeper than 128 levels")) << r.err;
  const auto set = run_cli({"validate", write("t.json", hostile_scenario()), "--set",
                            "description=" + std::string(100000, '[') + std::string(100000, ']')});
  EXPECT_EQ(set.code, 2) << set.err;
  EXPECT_TRUE(has(set.err, "--set description:1:129: ")) << set.err.substr(0, 200);
  EXPECT_TRUE(has(set.err, "nested deeper than 128 levels")) << set.err.substr(0, 200);
}

// Inputs that once grew without bound or blamed the program: an endless line, a symlink loop,
// a memory profile whose period asks for ~10^8 events.
TEST_F(Hostile, EndlessLineSymlinkLoopAndTinyPeriodAreBadInput) {
  const auto s = write("t.json", hostile_scenario());
  if (fs::exists("/dev/zero")) {
    const auto zero = run_cli({"run", s, "--no-outputs", "--set", "trace.file=/dev/zero"});
    EXPECT_EQ(zero.code, 2) << zero.err;
    EXPECT_TRUE(has(zero.err, "/dev/zero:1: a line longer than 16 MiB")) << zero.err;
  }
  fs::create_symlink(dir_ / "loop-a", dir_ / "loop-b");
  fs::create_symlink(dir_ / "loop-b", dir_ / "loop-a");
  const auto loop =
      run_cli({"run", s, "--no-outputs", "--set", "trace.file=" + (dir_ / "loop-a").string()});
  EXPECT_EQ(loop.code, 2) << loop.err;
  EXPECT_TRUE(has(loop.err, "cannot read the trace file")) << loop.err;
  const auto spiky =
      run_cli({"validate", s, "--set",
               R"(trace.memory_profiles={"profiles": [{"name": "p", "steady_fraction": 0.5,
          "spike_period_s": 1e-5, "spike_s": 1e-6}]})"});
  EXPECT_EQ(spiky.code, 2) << spiky.err;
  EXPECT_TRUE(has(spiky.err, "spike_period_s")) << spiky.err;
  EXPECT_TRUE(has(spiky.err, "at least 1 s")) << spiky.err;
}

TEST_F(Hostile, NumberBeyondDoubleIsBadInput) {
  const auto s = write("s.json", hostile_scenario(R"(, "seed": 1e400)"));
  const auto r = run_cli({"validate", s});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "s.json:")) << r.err;
  EXPECT_TRUE(has(r.err, "field 'seed'")) << r.err;
  EXPECT_TRUE(has(r.err, "number out of range")) << r.err;

  const auto set =
      run_cli({"validate", write("t.json", hostile_scenario()), "--set", "seed=1e400"});
  EXPECT_EQ(set.code, 2) << set.err;
  EXPECT_TRUE(has(set.err, "--set seed=1e400")) << set.err;
  EXPECT_TRUE(has(set.err, "number out of range")) << set.err;
}

TEST_F(Hostile, TopLevelArrayWithSeedIsBadInput) {
  const auto s = write("a.json", "[1, 2]");
  const auto v = run_cli({"validate", s, "--seed", "3"});
  EXPECT_EQ(v.code, 2) << v.err;
  EXPECT_TRUE(has(v.err, "a.json#: expected an object, got array")) << v.err;
  // An --set that makes outputs a number, before --out sets outputs.dir.
  const auto t = write("t.json", hostile_scenario());
  const auto outputs = run_cli({"run", t, "--set", "outputs=5", "--out", "o"});
  EXPECT_EQ(outputs.code, 2) << outputs.err;
  EXPECT_TRUE(has(outputs.err, "t.json#/outputs")) << outputs.err;
  const auto p = run_cli(
      {"plan", s, "--seed", "3", "--models", "exclusive", "--objective", "queue_p95_s<=60"});
  EXPECT_EQ(p.code, 2) << p.err;
  EXPECT_TRUE(has(p.err, "a.json#: expected an object, got array")) << p.err;
}

TEST_F(Hostile, DuplicateKeyIsBadInputWithItsPointer) {
  const auto s = write("s.json", R"({"name": "x", "outputs": {"jobs_csv": true, "jobs_csv": false},
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 1, "device": "T4"}]},
    "trace": {"file": "trace.csv"}})");
  const auto r = run_cli({"validate", s});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "s.json#/outputs/jobs_csv: field 'jobs_csv': duplicate key")) << r.err;
}

TEST_F(Hostile, NegativeSeedOrJobCountIsBadInput) {
  const auto s = write("s.json", hostile_scenario());
  const auto seed = run_cli({"validate", s, "--seed", "-1"});
  EXPECT_EQ(seed.code, 2);
  EXPECT_TRUE(has(seed.err, "non-negative")) << seed.err;
  const auto out = (dir_ / "g.csv").string();
  const auto jobs = run_cli({"generate", "--jobs", "-5", "-o", out});
  EXPECT_EQ(jobs.code, 2);
  EXPECT_TRUE(has(jobs.err, "--jobs: expected a positive integer")) << jobs.err;
  EXPECT_EQ(run_cli({"generate", "--seed", "-1", "-o", out}).code, 2);
  EXPECT_FALSE(fs::exists(out));
}

// Ten jobs of 1e12 s (the largest duration a trace may give) on 16 GPUs run one after another:
// the fifth would end past 2^62 us. Before the check, times wrapped to -8.4e12 s.
TEST_F(Hostile, SimulatedTimeOverflowIsBadInputNamingTheTrace) {
  std::string rows = "id,submit_s,gpus,runtime_s\n";
  for (int i = 0; i < 10; ++i) rows += "j" + std::to_string(i) + ",0,16,1e12\n";
  write("trace.csv", rows);
  const auto s = write("s.json", hostile_scenario(R"(, "outputs": {"timeseries_csv": false})"));
  const auto r = run_cli({"run", s, "--quiet"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "trace.csv")) << r.err;
  EXPECT_TRUE(has(r.err, "would pass the latest simulated time")) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "hostile" / "jobs.csv"));
}

TEST_F(Hostile, GeneratorWithTinyRateStopsBeforeNegativeTimes) {
  const auto config = write("gen.json", R"({"jobs": 10, "arrival": {"rate_per_hour": 1e-9}})");
  const auto out = (dir_ / "g.csv").string();
  const auto r = run_cli({"generate", "--config", config, "-o", out});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "gen.json#/arrival/rate_per_hour")) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Hostile, ScenarioNameCannotLeaveTheOutputFolder) {
  for (const char* name : {"..", "."}) {
    const auto s = write("s.json", R"({"name": ")" + std::string(name) + R"(",
      "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 1, "device": "T4"}]},
      "trace": {"file": "trace.csv"}})");
    const auto r = run_cli({"validate", s});
    EXPECT_EQ(r.code, 2) << name;
    EXPECT_TRUE(has(r.err, "s.json#/name")) << r.err;
  }
}

TEST_F(Hostile, EndlessTimeseriesIsBadInputBeforeWritingIt) {
  write("trace.csv", "id,submit_s,gpus,runtime_s\na,0,1,1e12\n");
  // Outputs into this test's folder (a relative dir would be the working directory's).
  const std::string out = (dir_ / "out").string();
  const auto s = write("s.json", hostile_scenario(R"(, "outputs": {"dir": ")" + out + R"("})"));
  const auto r = run_cli({"run", s, "--quiet"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "s.json#/outputs/timeseries_interval_s")) << r.err;
  EXPECT_TRUE(has(r.err, "more than 1000000 rows")) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "timeseries.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "jobs.csv"));

  write("trace.csv", "id,submit_s,gpus,runtime_s\na,0,1,3600\n");
  const auto fine = write("f.json", hostile_scenario(R"(, "outputs": {"dir": ")" + out +
                                                     R"(", "timeseries_interval_s": 0.001})"));
  const auto f = run_cli({"run", fine, "--quiet"});
  EXPECT_EQ(f.code, 2) << f.err;  // 3.6 million rows
  EXPECT_TRUE(has(f.err, "raise timeseries_interval_s")) << f.err;
  EXPECT_EQ(run_cli({"run", fine, "--quiet", "--set", "outputs.timeseries_interval_s=60"}).code, 0);
}

TEST_F(Hostile, MigOnAClusterWithoutMigIsBadInput) {
  const auto s = write("s.json", R"({"name": "x",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 4, "device": "V100M32"}]},
    "sharing": {"model": "mig", "params": {"layout": ["3g.20gb"]}},
    "trace": {"file": "trace.csv"}})");
  const auto r = run_cli({"validate", s});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "s.json#/sharing/params/layout")) << r.err;
  EXPECT_TRUE(has(r.err, "no device of the cluster supports MIG (V100M32)")) << r.err;
}

TEST_F(Hostile, MigPartedIndexBeyondTheNodesIsBadInput) {
  write("parted.yaml", R"(version: v1
mig-configs:
  odd:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.5gb": 7}
    - devices: [8]
      mig-enabled: false
)");
  write("huge.yaml", R"(version: v1
mig-configs:
  huge:
    - devices: [999999]
      mig-enabled: false
)");
  const auto odd = write("odd.json", R"({"name": "x",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 8, "device": "A100-40GB"}]},
    "sharing": {"model": "mig", "params": {"mig_parted": "parted.yaml", "config": "odd"}},
    "trace": {"file": "trace.csv"}})");
  const auto r = run_cli({"validate", odd});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "parted.yaml:7:")) << r.err;
  EXPECT_TRUE(has(r.err, "GPU index 8 is beyond every node (at most 8 GPUs")) << r.err;
  // An index no node can have fails in the file itself, whichever config is selected.
  const auto h = run_cli({"validate", odd, "--set", "sharing.params.mig_parted=huge.yaml", "--set",
                          "sharing.params.config=huge"});
  EXPECT_EQ(h.code, 2);
  EXPECT_TRUE(has(h.err, "huge.yaml:4:")) << h.err;
  EXPECT_TRUE(has(h.err, "999999")) << h.err;
}

// An --set index past the end of an array once filled it with nulls up to that index (3 GB and
// bad_alloc for 10^8), or reported the first filler ("node_groups/1 ... got null").
TEST_F(Hostile, SetIndexPastTheEndIsBadInputNamingTheIndex) {
  const auto s = write("s.json", hostile_scenario());
  for (const std::string index : {"100000000", "10000000000", "99999999999999999999999", "2"}) {
    const std::string set = "/cluster/node_groups/" + index + "/nodes=1";
    const auto r = run_cli({"validate", s, "--set", set});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_TRUE(has(r.err, "--set " + set + ": field '/cluster/node_groups/" + index + "'"))
        << r.err;
    EXPECT_TRUE(has(r.err, "array index " + index +
                               " is past the end of the array at "
                               "'/cluster/node_groups' (1 element); index 1 or '-' appends"))
        << r.err;
    EXPECT_FALSE(has(r.err, "got null")) << r.err;
  }
  // A dotted path, and a number addressing a missing value (which becomes an empty array).
  const auto dotted = run_cli({"validate", s, "--set", "cluster.node_groups.5.nodes=1"});
  EXPECT_EQ(dotted.code, 2) << dotted.err;
  EXPECT_TRUE(has(dotted.err, "array index 5 is past the end")) << dotted.err;
  const auto fresh = run_cli({"validate", s, "--set", "/trace/list/100000000=1"});
  EXPECT_EQ(fresh.code, 2) << fresh.err;
  EXPECT_TRUE(has(fresh.err,
                  "array index 100000000 is past the end of the array at "
                  "'/trace/list' (0 elements)"))
      << fresh.err;
  // One past the end appends: the new group is then checked like any other.
  const auto append = run_cli({"validate", s, "--set", "/cluster/node_groups/1/nodes=1"});
  EXPECT_EQ(append.code, 2) << append.err;
  EXPECT_TRUE(has(append.err, "node_groups/1")) << append.err;
  EXPECT_FALSE(has(append.err, "past the end")) << append.err;
  const auto whole =
      run_cli({"validate", s, "--set",
               R"(/cluster/node_groups/1={"nodes": 1, "gpus_per_node": 8, "device": "T4"})"});
  EXPECT_EQ(whole.code, 0) << whole.err;
  const auto dash =
      run_cli({"validate", s, "--set",
               R"(/cluster/node_groups/-={"nodes": 1, "gpus_per_node": 8, "device": "T4"})"});
  EXPECT_EQ(dash.code, 0) << dash.err;
}

// A misspelt nodes-CSV column ("cpu" for "cpus") was ignored, the nodes' cores lost.
TEST_F(Hostile, NodesCsvUnknownOrRepeatedColumnIsBadInput) {
  write("nodes.csv", "name,gpus,device,cpu\na,8,A100-40GB,64\n");
  const auto s = write("s.json", R"({"name": "x", "cluster": {"nodes_csv": "nodes.csv"},
    "trace": {"file": "trace.csv"}})");
  const auto r = run_cli({"validate", s});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "nodes.csv:1: field 'cpu': unknown column (did you mean 'cpus'?)"))
      << r.err;
  write("nodes.csv", "name,gpus,device,gpus\na,8,A100-40GB,4\n");
  const auto twice = run_cli({"validate", s});
  EXPECT_EQ(twice.code, 2) << twice.err;
  EXPECT_TRUE(has(twice.err, "nodes.csv:1: field 'gpus': column given twice")) << twice.err;
  write("nodes.csv", "name,gpus,device,cpus\na,8,A100-40GB,64\n");
  EXPECT_EQ(run_cli({"validate", s}).code, 0);
}

// Two cluster.devices entries of one name: the last silently won. A device named "" was taken.
TEST_F(Hostile, DuplicateOrEmptyDeviceNameIsBadInput) {
  const std::string device = R"({"name": "X1", "memory_mib": 16384, "sms": 40})";
  const auto s =
      write("s.json", R"({"name": "x", "cluster": {"devices": [)" + device + ", " + device + R"(],
      "node_groups": [{"nodes": 1, "gpus_per_node": 8, "device": "X1"}]},
    "trace": {"file": "trace.csv"}})");
  const auto r = run_cli({"validate", s});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err,
                  "s.json#/cluster/devices/1/name: field 'name': a second device named "
                  "'X1' (the first is /cluster/devices/0)"))
      << r.err;
  const auto one = run_cli({"validate", s, "--set", "/cluster/devices/1/name=X2"});
  EXPECT_EQ(one.code, 0) << one.err;
  const auto empty = run_cli({"validate", s, "--set", R"(/cluster/devices/1/name="")"});
  EXPECT_EQ(empty.code, 2) << empty.err;
  EXPECT_TRUE(has(empty.err, "#/cluster/devices/1/name")) << empty.err;
  EXPECT_TRUE(has(empty.err, "must be non-empty")) << empty.err;
}

// An empty --seed or --jobs was taken as not given; pack read --seed -1 as 2^64 - 1; a seed
// past 2^64 - 1 was clamped and blamed on the scenario's /seed.
TEST_F(Hostile, EmptyNegativeOrHugeSeedIsBadInputNamingTheOption) {
  const auto s = write("s.json", hostile_scenario());
  const auto out = (dir_ / "g.csv").string();
  const std::vector<std::vector<std::string>> cases = {
      {"validate", s, "--seed", ""},
      {"run", s, "--no-outputs", "--seed", ""},
      {"validate", s, "--seed", "18446744073709551616"},
      {"validate", s, "--seed", "99999999999999999999999"},
      {"validate", s, "--seed", "9223372036854775808"},  // past a scenario's /seed range
      {"check", s, "--seed", ""},
      {"check", s, "--seed", "-1"},
      {"generate", "--seed", "", "-o", out},
      {"generate", "--seed", "18446744073709551616", "-o", out},
      {"pack", "--nodes", "n.csv", "--pods", "p.csv", "--policy", "FGD", "--seed", "-1"},
      {"pack", "--nodes", "n.csv", "--pods", "p.csv", "--policy", "FGD", "--seed", ""},
      {"pack", "--nodes", "n.csv", "--pods", "p.csv", "--policy", "FGD", "--seed",
       "18446744073709551616"},
  };
  for (const auto& args : cases) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args[0] << " " << args.back() << ": " << r.err;
    EXPECT_TRUE(has(r.err, "--seed: expected a non-negative integer")) << r.err;
    EXPECT_FALSE(has(r.err, "#/seed")) << r.err;
  }
  const auto jobs = run_cli({"generate", "--jobs", "", "-o", out});
  EXPECT_EQ(jobs.code, 2) << jobs.err;
  EXPECT_TRUE(has(jobs.err, "--jobs: expected a ")) << jobs.err;
  EXPECT_TRUE(has(jobs.err, "got '' (an empty value)")) << jobs.err;
  EXPECT_FALSE(fs::exists(out));
  // The largest seeds are taken.
  EXPECT_EQ(run_cli({"validate", s, "--seed", "9223372036854775807"}).code, 0);
  const auto top =
      run_cli({"generate", "--jobs", "2", "--seed", "18446744073709551615", "-o", out});
  EXPECT_EQ(top.code, 0) << top.err;
  EXPECT_TRUE(has(top.out, "(seed 18446744073709551615)")) << top.out;
}

// generate -o '' failed as "error: : cannot move the result into place"; --jobs 0 was refused
// as "<defaults>#/jobs" while --help said non-negative.
TEST_F(Hostile, GenerateEmptyOutputOrZeroJobsNamesTheOption) {
  const auto empty = run_cli({"generate", "-o", ""});
  EXPECT_EQ(empty.code, 2) << empty.err;
  EXPECT_TRUE(has(empty.err, "--output: expected a non-empty value")) << empty.err;
  const auto out = (dir_ / "g.csv").string();
  const auto zero = run_cli({"generate", "--jobs", "0", "-o", out});
  EXPECT_EQ(zero.code, 2) << zero.err;
  EXPECT_TRUE(has(zero.err, "--jobs: expected a positive integer (at most 1000000000), got '0'"))
      << zero.err;
  EXPECT_FALSE(has(zero.err, "<defaults>")) << zero.err;
  EXPECT_FALSE(fs::exists(out));
  const auto help = run_cli({"generate", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(has(help.out + help.err, "POSITIVE")) << help.out;
  EXPECT_TRUE(has(help.out + help.err, "number of jobs, 1 to 10^9")) << help.out;
  EXPECT_FALSE(has(help.out + help.err, "--jobs UINT:NON-NEGATIVE")) << help.out;
}

// The busy share is a running sum (each GPU's value added, later removed): 0.1 + 0.2 + 0.3 less
// each again left 6.9e-18 in timeseries.csv once every job had finished.
TEST_F(Hostile, TimeseriesWritesZeroNotFloatNoise) {
  write("trace.csv",
        "id,submit_s,gpus,runtime_s,sm_util\na,0,1,10,0.1\nb,0,1,20,0.2\n"
        "c,0,1,30,0.3\n");
  const std::string out = (dir_ / "out").string();
  const auto s = write("s.json", hostile_scenario(R"(, "outputs": {"dir": ")" + out +
                                                  R"(", "timeseries_interval_s": 5})"));
  const auto r = run_cli({"run", s, "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string series = testing::read_file(dir_ / "out" / "timeseries.csv");
  EXPECT_TRUE(has(series, "\n30,0,0,0,0,0,0,3,")) << series;
  EXPECT_FALSE(has(series, "e-1")) << series;
  EXPECT_TRUE(has(series, "\n20,1,0.0625,0.01875")) << series;  // a value itself is kept
}

// Generator `gpus: 1.5` became 2-GPU jobs without a word: a constant or a choice of GPU counts
// must be whole; a continuous distribution is rounded (documented), so it stays accepted.
TEST_F(Hostile, GeneratorFractionalGpuCountIsBadInput) {
  for (const std::string gpus : {"1.5", R"({"choice": [1, 2.5]})"}) {
    const auto s = write("g.json", R"({"name": "g",
      "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 8, "device": "A100-40GB"}]},
      "trace": {"generator": {"jobs": 10, "gpus": )" + gpus + "}}}");
    const auto r = run_cli({"run", s, "--no-outputs"});
    EXPECT_EQ(r.code, 2) << gpus << ": " << r.err;
    EXPECT_TRUE(has(r.err, "/trace/generator/gpus")) << r.err;
    EXPECT_TRUE(has(r.err, "whole")) << r.err;
  }
  const auto ok = write("u.json", R"({"name": "g",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 8, "device": "A100-40GB"}]},
    "trace": {"generator": {"jobs": 10, "gpus": {"uniform": [1, 4]}}}})");
  EXPECT_EQ(run_cli({"run", ok, "--no-outputs"}).code, 0);
}

// A service offered 1e9 requests/s (inside the rate's range) without a queue limit grew to 4 GB
// in 20 s: request-level mode now refuses a service expecting more arrivals in its lifetime
// than it simulates in bounded time and memory, naming the job and pointing to the analytic
// mode, which takes it.
TEST_F(Hostile, RequestLevelServiceBeyondTheRequestBudgetIsBadInput) {
  write("trace.csv",
        "id,submit_s,gpus,runtime_s,kind,request_rate_per_s,service_ms\n"
        "svc,0,1,3600,inference,1e9,10\n");
  const auto s = write("s.json", hostile_scenario());
  const auto r = run_cli({"run", s, "--no-outputs"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "job 'svc'")) << r.err;
  EXPECT_TRUE(has(r.err, "request_rate_per_s")) << r.err;
  EXPECT_TRUE(has(r.err, "analytic")) << r.err;
  const auto analytic = write("a.json", hostile_scenario(R"(, "services": {"mode": "analytic"})"));
  EXPECT_EQ(run_cli({"run", analytic, "--no-outputs"}).code, 0);
  // 2e5/s over 3,600 s (7.2e8 requests) is within the 1e9 allowed with a queue limit, but
  // beyond the 1e8 without one: the error says so.
  write("trace.csv",
        "id,submit_s,gpus,runtime_s,kind,request_rate_per_s,service_ms\n"
        "svc,0,1,3600,inference,2e5,10\n");
  const auto unbounded = run_cli({"run", s, "--no-outputs"});
  EXPECT_EQ(unbounded.code, 2) << unbounded.err;
  EXPECT_TRUE(has(unbounded.err, "max_queue")) << unbounded.err;
}

// `inflation.jobs: 0` meant "as many as the list" and `max_runtime_s: 0` "no clip" while the
// summary echoed the 0: an explicit 0 is now bad input pointing to the rule (leave the key out),
// and a key left out is not echoed as 0.
TEST_F(Hostile, InflationZeroJobsOrClipIsBadInputAndNotEchoed) {
  const auto s = write("t.json", hostile_scenario());
  for (const std::string key : {"jobs", "max_runtime_s"}) {
    const auto r = run_cli({"validate", s, "--set",
                            R"(trace.inflation={"load": 0.5, ")" + key + R"(": 0})"});
    EXPECT_EQ(r.code, 2) << key << ": " << r.err;
    EXPECT_TRUE(has(r.err, "t.json#/trace/inflation/" + key)) << r.err;
    EXPECT_TRUE(has(r.err, "leave '" + key + "' out")) << r.err;
  }
  const std::string out = (dir_ / "out").string();
  const auto r = run_cli({"run", s, "--quiet", "--out", out, "--set",
                          R"(trace.inflation={"load": 0.5})"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(testing::read_file(dir_ / "out" / "summary.json"));
  const auto& echo = summary["scenario"]["trace"]["inflation"];
  EXPECT_EQ(echo, nlohmann::json({{"load", 0.5}})) << echo.dump();
  EXPECT_EQ(summary["trace"]["inflation"]["arrivals"], 1) << summary["trace"].dump();
}

// A calibration measured on one device applied to another (a T4 file on A100s) gave no word: it is
// still run (the nearest fit may be all there is) with a warning naming both devices; a file of the
// cluster's own device, or one that names no device, gives none.
TEST_F(Hostile, CalibrationFromAnotherDeviceWarnsNamingBoth) {
  const auto calibration = [&](const std::string& device) {
    return write("cal.json", R"({"format": "gpumux-calibration", )" + device + R"(
      "models": {"timeslice": {"params": {"interference": 0.02, "switch_cost_us": 35.5},
                               "fixed": []}}})");
  };
  calibration(R"("device": "T4",)");
  const auto s = write("t.json", hostile_scenario(R"(,
    "sharing": {"model": "timeslice", "params": {"calibration": "cal.json"}})"));
  const auto other = run_cli({"validate", s});
  EXPECT_EQ(other.code, 0) << other.err;
  EXPECT_TRUE(has(other.err, "warning: " + s + "#/sharing/params/calibration")) << other.err;
  EXPECT_TRUE(has(other.err, "measured on T4, applied here to A100-40GB")) << other.err;
  const auto run = run_cli({"run", s, "--no-outputs", "--quiet"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(has(run.err, "measured on T4, applied here to A100-40GB")) << run.err;
  calibration(R"("device": "A100-40GB",)");
  const auto same = run_cli({"validate", s});
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_FALSE(has(same.err, "warning")) << same.err;
  calibration("");
  EXPECT_FALSE(has(run_cli({"validate", s}).err, "warning"));
}

// The files and folders directly in `dir`.
std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// The gpumux binary running `args` in `dir`, stopped by `sig` once a folder of `dir` whose name
// starts with `started` holds a file with data (a run writing its temporary folder): it must
// leave `dir` holding `left` only.
void stop_the_binary(const fs::path& dir, std::vector<std::string> args, int sig,
                     const std::string& started, const std::set<std::string>& left) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    args.insert(args.begin(), "gpumux");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(GPUMUX_BINARY, argv.data());
    ::_exit(127);
  }
  ASSERT_GT(child, 0);
  bool writing = false;
  for (int i = 0; i < 500 && !writing; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::error_code ec;
    for (const auto& top : fs::directory_iterator(dir, ec)) {
      if (top.path().filename().string().rfind(started, 0) != 0) continue;
      for (const auto& e : fs::recursive_directory_iterator(top.path(), ec)) {
        writing = writing || (e.is_regular_file(ec) && e.file_size(ec) > 0);
      }
    }
  }
  EXPECT_TRUE(writing) << "the command never started writing under " << started;
  ::kill(child, sig);
  int status = 0;
  for (int i = 0; i < 500 && ::waitpid(child, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (::waitpid(child, &status, WNOHANG) == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    FAIL() << "the command did not stop on signal " << sig;
  }
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
  EXPECT_EQ(names_in(dir), left);
}

// A long scenario (20 million generated jobs) with a bound, for check and compare to be stopped in.
constexpr const char* kLongScenario = R"({"name": "long",
    "cluster": {"node_groups": [{"nodes": 4, "gpus_per_node": 8, "device": "V100M32"}]},
    "trace": {"generator": {"jobs": 20000000}},
    "expect": {"jobs.rejected": {"max": 0}}})";

// `compare --out cmp` stopped by SIGTERM left cmp.tmp-<pid>/ (its run folders <model>/seed-<n>/
// are two levels deep, and the signal cleanup removed one); `check --out chk` stopped by SIGINT
// left an empty chk/.
TEST_F(Hostile, StoppedCompareOrCheckLeavesNothing) {
  write("long.json", kLongScenario);
  stop_the_binary(dir_, {"compare", "long.json", "--models", "exclusive", "--seeds", "1", "--out",
                         "cmp"},
                  SIGTERM, "cmp.tmp-", {"long.json", "trace.csv"});
  stop_the_binary(dir_, {"check", "long.json", "--out", "chk"}, SIGINT, "chk",
                  {"long.json", "trace.csv"});
}

// A command failing on a bad trace row left the folders it had made for its outputs: an empty
// chk/ (check --out chk), deep/er/ (--out deep/er/out); an over-long scenario name failed
// cleanly but left out/.
TEST_F(Hostile, FailedRunLeavesNoFolderItCreated) {
  write("trace.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\nb,5,two,10\n");
  const auto s = write("t.json", hostile_scenario(R"(, "expect": {"jobs.rejected": {"max": 0}})"));
  const auto check = run_cli({"check", s, "--out", (dir_ / "chk").string()});
  EXPECT_EQ(check.code, 2) << check.err;
  EXPECT_TRUE(has(check.err, "trace.csv:3")) << check.err;
  const auto deep = run_cli({"run", s, "--quiet", "--out", (dir_ / "deep/er/out").string()});
  EXPECT_EQ(deep.code, 2) << deep.err;
  const auto cmp = run_cli({"compare", s, "--models", "exclusive", "--seeds", "1", "--out",
                            (dir_ / "deep2/cmp").string()});
  EXPECT_EQ(cmp.code, 2) << cmp.err;
  EXPECT_EQ(names_in(dir_), (std::set<std::string>{"t.json", "trace.csv"}));
  // The default folder out/<name> under the working directory: a name too long for the file
  // system fails, and out/ is not left behind (when it was not there before).
  if (!fs::exists("out")) {
    write("trace.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\n");
    const auto long_name = write("n.json", R"({"name": ")" + std::string(300, 'n') + R"(",
      "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 1, "device": "T4"}]},
      "trace": {"file": "trace.csv"}})");
    const auto r = run_cli({"run", long_name, "--quiet"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_FALSE(fs::exists("out")) << r.err;
    fs::remove_all("out");
  }
  // A run that succeeds keeps the folders made for it.
  write("trace.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\n");
  ASSERT_EQ(run_cli({"run", s, "--quiet", "--out", (dir_ / "deep/er/out").string()}).code, 0);
  EXPECT_TRUE(fs::exists(dir_ / "deep/er/out/summary.json"));
}

// Vague errors, each now naming its cause: a UTF-8 byte order mark (now read past), CR-only line
// ends (named, without the raw '\r'), a folder as the mig-parted file, `outputs.dir: ""` (blamed
// on the key, not on --out).
TEST_F(Hostile, BomCrLineEndsFolderAndEmptyOutputDirAreNamed) {
  const auto s = write("t.json", hostile_scenario());
  write("trace.csv", "\xEF\xBB\xBFid,submit_s,gpus,runtime_s\na,0,1,10\n");
  const auto bom = run_cli({"run", s, "--no-outputs", "--quiet"});
  EXPECT_EQ(bom.code, 0) << bom.err;
  write("trace.csv", "id,submit_s,gpus,runtime_s\ra,0,1,10\r");
  const auto cr = run_cli({"run", s, "--no-outputs", "--quiet"});
  EXPECT_EQ(cr.code, 2) << cr.err;
  EXPECT_TRUE(has(cr.err, "trace.csv:1: line ends are CR only")) << cr.err;
  EXPECT_FALSE(has(cr.err, "\r")) << cr.err;
  write("trace.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\n");

  fs::create_directory(dir_ / "parted");
  const auto mig = write("m.json", R"({"name": "x",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 8, "device": "A100-40GB"}]},
    "sharing": {"model": "mig", "params": {"mig_parted": "parted", "config": "odd"}},
    "trace": {"file": "trace.csv"}})");
  const auto folder = run_cli({"validate", mig});
  EXPECT_EQ(folder.code, 2) << folder.err;
  EXPECT_TRUE(has(folder.err, "parted: is a folder, expected the mig-parted file")) << folder.err;
  EXPECT_FALSE(has(folder.err, "got null")) << folder.err;

  const auto empty = run_cli({"validate", s, "--set", "outputs.dir="});
  EXPECT_EQ(empty.code, 2) << empty.err;
  EXPECT_TRUE(has(empty.err, "#/outputs/dir")) << empty.err;
  const auto empty_file =
      run_cli({"validate", write("e.json", hostile_scenario(R"(, "outputs": {"dir": ""})"))});
  EXPECT_EQ(empty_file.code, 2) << empty_file.err;
  EXPECT_TRUE(has(empty_file.err, "e.json#/outputs/dir: field 'dir'")) << empty_file.err;
  EXPECT_FALSE(has(empty_file.err, "--out")) << empty_file.err;
  const auto out = run_cli({"run", s, "--out", ""});
  EXPECT_EQ(out.code, 2) << out.err;
  EXPECT_TRUE(has(out.err, "--out")) << out.err;
}

// `plan --max-nodes 1000000` on an objective no size meets ended blaming the scenario's node
// count for the cluster GPU limit: --max-nodes is checked against it before any probe.
TEST_F(Hostile, PlanMaxNodesPastTheClusterLimitBlamesTheOption) {
  const auto s = write("p.json", R"({"name": "p",
    "cluster": {"node_groups": [{"nodes": 2, "gpus_per_node": 8, "device": "A100-40GB"}]},
    "trace": {"file": "trace.csv"}})");
  const auto r = run_cli({"plan", s, "--models", "exclusive", "--objective",
                          "queueing_delay_s.p95<=60", "--max-nodes", "1000000"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--max-nodes 1000000: field 'max-nodes'")) << r.err;
  EXPECT_TRUE(has(r.err, "at most 125000")) << r.err;
  EXPECT_FALSE(has(r.err, "node_groups")) << r.err;
}

// The generator's durations were capped at 1e9 s while every other time in a trace may reach the
// documented 1e12 s (docs/limits.md): they now share that bound.
TEST_F(Hostile, GeneratorDurationsShareTheTraceTimeBound) {
  const auto gen = [&](const std::string& runtime) {
    return write("g.json", R"({"name": "g",
      "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 8, "device": "A100-40GB"}]},
      "trace": {"generator": {"jobs": 3, "runtime_s": )" + runtime + "}}}");
  };
  EXPECT_EQ(run_cli({"validate", gen("5e11")}).code, 0);
  const auto big = run_cli({"validate", gen("2e12")});
  EXPECT_EQ(big.code, 2) << big.err;
  EXPECT_TRUE(has(big.err, "/trace/generator/runtime_s")) << big.err;
  EXPECT_TRUE(has(big.err, "1000000000000")) << big.err;
}

// Issue 56, class 1: a summary whose metric is a string, whose metric group is a number or whose
// count is a boolean read as "n/a" in diff (exit 3); each is bad input naming the pointer, as in
// merge (both read the summary through check_summary_metric_types).
TEST_F(Hostile, DiffSummaryOfWrongTypesNamesThePointer) {
  const auto golden =
      nlohmann::json::parse(testing::read_file("tests/golden/quickstart/summary.json"));
  const auto b = write("b.json", golden.dump());
  const auto edited = [&](const std::string& pointer, const nlohmann::json& value) {
    nlohmann::json doc = golden;
    doc[nlohmann::json::json_pointer(pointer)] = value;
    return write("a.json", doc.dump());
  };
  struct Case {
    std::string pointer;
    nlohmann::json value;
  };
  for (const Case& c : {Case{"/metrics/jct_s/p95", "12"}, Case{"/metrics/jct_s", 5},
                        Case{"/metrics/jobs/finished", true}}) {
    const auto a = edited(c.pointer, c.value);
    const auto r = run_cli({"diff", a, b});
    EXPECT_EQ(r.code, 2) << c.pointer << ": " << r.out << r.err;
    EXPECT_TRUE(has(r.err, "a.json#" + c.pointer + ": ")) << r.err;
    EXPECT_EQ(r.out, "");
    const auto reversed = run_cli({"diff", b, a});
    EXPECT_EQ(reversed.code, 2) << reversed.err;
    EXPECT_TRUE(has(reversed.err, "a.json#" + c.pointer)) << reversed.err;
  }
  EXPECT_EQ(run_cli({"diff", b, b}).code, 0);
}

// Class 2: a JSON or YAML input that never ends (/dev/zero) or is huge grew memory until
// bad_alloc (exit 1); a file that is not a regular file is refused before reading.
TEST_F(Hostile, EndlessJsonInputIsRefusedBeforeReading) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP();
  const auto summary = write("b.json", testing::read_file("tests/golden/quickstart/summary.json"));
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"diff", "/dev/zero", summary},
                                             {"run", "/dev/zero", "--no-outputs"},
                                             {"validate", "/dev/zero"},
                                             {"check", "/dev/zero"}}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args[0] << ": " << r.err;
    EXPECT_TRUE(has(r.err, "/dev/zero: is not a regular file")) << args[0] << ": " << r.err;
  }
  const auto parted =
      run_cli({"validate", write("m.json", hostile_scenario(R"(, "sharing": {"model": "mig",
    "params": {"mig_parted": "/dev/zero", "config": "all-1g.5gb"}})"))});
  EXPECT_EQ(parted.code, 2) << parted.err;
  EXPECT_TRUE(has(parted.err, "/dev/zero: is not a regular file")) << parted.err;
  // A regular file past the bound: refused by its size, before it is read.
  const fs::path big = dir_ / "big.json";
  {
    std::ofstream f(big, std::ios::binary);
    f << "{}";
  }
  fs::resize_file(big, (std::uintmax_t{256} << 20) + 1);
  const auto huge = run_cli({"validate", big.string()});
  EXPECT_EQ(huge.code, 2) << huge.err;
  EXPECT_TRUE(has(huge.err, "big.json: larger than 256 MiB")) << huge.err;
}

// Class 3: a name read from input holding terminal escapes was printed raw (diff's table, every
// error line); it is printed with its control characters as visible escapes.
TEST_F(Hostile, TerminalEscapesInInputAreNotPrintedRaw) {
  nlohmann::json a =
      nlohmann::json::parse(testing::read_file("tests/golden/quickstart/summary.json"));
  nlohmann::json b = a;
  a["metrics"]["slots"]["profiles"]["\x1b[31mred\x1b[0m"] = {{"occupancy", 0.5}};
  const auto r = run_cli({"diff", write("a.json", a.dump()), write("b.json", b.dump())});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_FALSE(has(r.out, "\x1b")) << r.out;
  EXPECT_TRUE(has(r.out, "\\x1b[31mred\\x1b[0m")) << r.out;
  const auto named = run_cli({"validate", write("s.json", hostile_scenario(R"(, "sharing": {
    "model": "ex\u001b]0;x\u0007clusive"})"))});
  EXPECT_EQ(named.code, 2) << named.err;
  EXPECT_FALSE(has(named.err, "\x1b")) << named.err;
  EXPECT_FALSE(has(named.err, "\x07")) << named.err;
  EXPECT_TRUE(has(named.err, "ex\\x1b]0;x\\x07clusive")) << named.err;
  const auto title = run_cli({"validate", write("t.json", R"({"name": "a\u001b[2Jb",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 16, "device": "A100-40GB"}]},
    "trace": {"file": "trace.csv"}})")});
  EXPECT_FALSE(has(title.out + title.err, "\x1b")) << title.out << title.err;
}

// Class 4: a tolerance given twice for one metric let the last win silently.
TEST_F(Hostile, DiffToleranceGivenTwiceIsBadInput) {
  const auto s = write("b.json", testing::read_file("tests/golden/quickstart/summary.json"));
  const auto r = run_cli({"diff", s, s, "--tolerance", "jct_s.p95=0.01", "--tolerance",
                          "jct_s.p95=0.5"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "--tolerance jct_s.p95=0.5: field 'jct_s.p95': given twice")) << r.err;
  const auto star = run_cli({"diff", s, s, "--tolerance", "*=0", "--tolerance", "*=1"});
  EXPECT_EQ(star.code, 2) << star.err;
  EXPECT_TRUE(has(star.err, "given twice")) << star.err;
  EXPECT_EQ(run_cli({"diff", s, s, "--tolerance", "jct_s=0.1", "--tolerance", "jct_s.p95=0.5"})
                .code,
            0);
}

// Class 5: an empty output path was taken as "not given" (exit 0, nothing written).
TEST_F(Hostile, EmptyOutputPathsAreRefusedNamingTheOption) {
  const auto s = write("t.json", hostile_scenario());
  const auto run = [&](std::vector<std::string> args, const std::string& option) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << option << ": " << r.out << r.err;
    EXPECT_TRUE(has(r.err, option + ": expected a non-empty value")) << r.err;
  };
  run({"check", s, "--junit", ""}, "--junit");
  run({"check", s, "--out", ""}, "--out");
  run({"report", dir_.string(), "-o", (dir_ / "r.html").string(), "--data", ""}, "--data");
  run({"report", dir_.string(), "-o", ""}, "--output");
  run({"compare", s, "--models", "exclusive", "--out", ""}, "--out");
  run({"plan", s, "--models", "exclusive", "--objective", "jct_s.p95<=60", "--out", ""},
      "--out");
  EXPECT_FALSE(fs::exists(dir_ / "r.html"));
}

// Class 9: a bad --placements value was reported against the scenario's #/scheduler/placement.
// Class 10: NaN passed every floating option's range check.
TEST_F(Hostile, PlanPlacementsAndNanOptionsBlameTheOption) {
  const auto s = write("p.json", hostile_scenario());
  const auto plan = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"plan", s, "--models", "exclusive", "--objective",
                                  "queueing_delay_s.p95<=60", "--max-nodes", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  const auto unknown = plan({"--placements", "spred"});
  EXPECT_EQ(unknown.code, 2) << unknown.err;
  EXPECT_TRUE(has(unknown.err, "--placements: field 'spred': unknown placement")) << unknown.err;
  EXPECT_TRUE(has(unknown.err, "did you mean 'spread'")) << unknown.err;
  EXPECT_FALSE(has(unknown.err, "#/scheduler/placement")) << unknown.err;
  const auto unfit = plan({"--placements", "gpu-packing"});
  EXPECT_EQ(unfit.code, 2) << unfit.err;
  EXPECT_TRUE(has(unfit.err, "--placements: field 'gpu-packing': with model 'exclusive'"))
      << unfit.err;
  EXPECT_FALSE(has(unfit.err, "#/scheduler/placement")) << unfit.err;
  for (const std::string option : {"--price-per-gpu-hour", "--seed-share", "--load"}) {
    for (const std::string value : {"nan", "NaN", "inf"}) {
      const auto r = plan({option, value});
      EXPECT_EQ(r.code, 2) << option << " " << value << ": " << r.out << r.err;
      EXPECT_TRUE(has(r.err, option)) << r.err;
    }
  }
}

// Class 13: a misspelled device in a MIG layout map was ignored (the GPUs ran whole).
TEST_F(Hostile, MigLayoutMapUnknownDeviceIsBadInput) {
  const auto s = write("m.json", hostile_scenario(R"(, "sharing": {"model": "mig",
    "params": {"layout": {"A100-40G": ["7g.40gb"]}}})"));
  for (const auto& args : std::vector<std::vector<std::string>>{{"validate", s},
                                                                 {"run", s, "--no-outputs"}}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args[0] << ": " << r.out << r.err;
    EXPECT_TRUE(has(r.err, "m.json#/sharing/params/layout: field 'layout': device 'A100-40G'"))
        << r.err;
    EXPECT_TRUE(has(r.err, "closest: A100-40GB")) << r.err;
  }
  const auto ok = write("ok.json", hostile_scenario(R"(, "sharing": {"model": "mig",
    "params": {"layout": {"A100-40GB": ["7g.40gb"]}}})"));
  EXPECT_EQ(run_cli({"validate", ok}).code, 0);
}

// Class 6: an output file and an output folder on the same path failed only after writing one.
TEST_F(Hostile, ClashingOutputPathsAreRefusedBeforeWriting) {
  const auto s = write("t.json", hostile_scenario());
  const auto x = (dir_ / "x").string();
  const auto check = run_cli({"check", s, "--out", x, "--junit", x});
  EXPECT_EQ(check.code, 2) << check.err;
  EXPECT_TRUE(has(check.err, "--junit " + x + ": clashes with --out " + x)) << check.err;
  EXPECT_FALSE(fs::exists(x));
  fs::create_directories(dir_ / "run");
  const auto run = run_cli({"run", s, "--quiet", "--out", (dir_ / "run").string()});
  ASSERT_EQ(run.code, 0) << run.err;
  const auto report = run_cli({"report", (dir_ / "run").string(), "-o", x, "--data", x});
  EXPECT_EQ(report.code, 2) << report.err;
  EXPECT_TRUE(has(report.err, "--output " + x + ": clashes with --data " + x)) << report.err;
  EXPECT_FALSE(fs::exists(x));
  // A file inside the folder is fine.
  const auto inside = run_cli({"report", (dir_ / "run").string(), "-o",
                               (dir_ / "d" / "r.html").string(), "--data",
                               (dir_ / "d").string()});
  EXPECT_EQ(inside.code, 0) << inside.err;
}

// Class 14: validate --full passed what run refuses before it measures anything: a fault
// injected into a job the trace lacks, a trace of a header alone.
TEST_F(Hostile, ValidateFullRefusesWhatRunRefuses) {
  const auto fault =
      write("f.json", hostile_scenario(R"(, "faults": {"inject": [{"job": "zz", "after_s": 1}]})"));
  const auto full = run_cli({"validate", "--full", fault});
  EXPECT_EQ(full.code, 2) << full.out << full.err;
  EXPECT_TRUE(
      has(full.err, "f.json#/faults/inject/0/job: field 'job': job 'zz' is not in the trace"))
      << full.err;
  EXPECT_EQ(run_cli({"run", fault, "--no-outputs"}).code, 2);
  write("empty.csv", "id,submit_s,gpus,runtime_s\n");
  const auto empty = write("e.json", R"({"name": "e",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 16, "device": "A100-40GB"}]},
    "trace": {"file": "empty.csv"}})");
  const auto header = run_cli({"validate", "--full", empty});
  EXPECT_EQ(header.code, 2) << header.out << header.err;
  EXPECT_TRUE(has(header.err, "the trace has no jobs (no data rows)")) << header.err;
  EXPECT_EQ(run_cli({"run", empty, "--no-outputs"}).code, 2);
  EXPECT_EQ(run_cli({"validate", "--full", write("ok.json", hostile_scenario())}).code, 0);
}

// Class 11: a second `plan --out po` refused the folder its first one wrote ("holds 'deploy',
// which no run wrote"); docs/planning.md says the folder is replaced whole.
TEST_F(Hostile, PlanOutReplacesItsOwnPlan) {
  const auto s = write("p.json", hostile_scenario());
  const auto po = (dir_ / "po").string();
  const std::vector<std::string> args{"plan", s, "--models", "exclusive", "--objective",
                                      "queueing_delay_s.p95<=60", "--max-nodes", "2", "--out",
                                      po, "--report"};
  const auto first = run_cli(args);
  ASSERT_EQ(first.code, 0) << first.err;
  ASSERT_TRUE(fs::exists(dir_ / "po" / "plan.json"));
  const auto second = run_cli(args);
  EXPECT_EQ(second.code, 0) << second.err;
  testing::write_file(dir_ / "po" / "mine.txt", "x");
  const auto foreign = run_cli(args);
  EXPECT_EQ(foreign.code, 2) << foreign.err;
  EXPECT_TRUE(has(foreign.err, "holds 'mine.txt', which no plan wrote")) << foreign.err;
}

}  // namespace
}  // namespace gpumux
