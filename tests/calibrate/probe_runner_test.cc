#include "calibrate/probe/probe_runner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "calibrate/probe/child_processes.h"
#include "sim/base/input_error.h"
#include "tests/calibrate/fake_backend.h"

namespace gpumux::calibration {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace testing_fake;

ProbeOptions small_options(const std::string& out) {
  // The fake checks what each child sees; a value from the caller's shell would change it.
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  ProbeOptions o;
  o.out_dir = out;
  o.kernel_us = {100};
  o.sm_share = {0.5, 1.0};
  o.duty = {0.5, 1.0};
  o.active_thread_pct = {50};
  o.modes = {"timeslice", "mps"};
  o.mixed_pairs = 1;
  o.mixed_triples = 1;
  o.warmup_s = 0.01;
  o.window_s = 0.05;
  o.containment = false;
  o.budget_s = 120;
  o.command_line = "gpumux-probe --test";
  return o;
}

PlanTimes fast_times() {
  PlanTimes t;
  t.spawn_s = 0.2;
  t.mps_start_s = 0.2;
  t.reserve_s = 0.2;
  return t;
}

struct CsvTable {
  std::string header;
  std::vector<std::vector<std::string>> rows;
};

CsvTable read_csv(const std::string& path) {
  CsvTable t;
  std::ifstream in(path);
  std::getline(in, t.header);
  for (std::string line; std::getline(in, line);) {
    std::stringstream ss(line);
    std::vector<std::string> f;
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    t.rows.push_back(f);
  }
  return t;
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

TEST(ProbeRunner, MeasuresEveryPlannedSetAndWritesTheThreeFiles) {
  const std::string out = fresh_dir("full");
  FakeBackend gpu;
  std::ostringstream log;
  ProbeRunner runner(small_options(out), gpu, log, fast_times(), fake_control(out + "-bin"));
  ASSERT_EQ(runner.run(), 0) << log.str();

  const CsvTable overlap = read_csv(out + "/overlap.csv");
  EXPECT_EQ(overlap.header, kOverlapCsvHeader);
  // Per mode: 4 identical pairs, 1 mixed pair, 2 identical triples (full share), 1 mixed
  // triple = 8 + 2 + 6 + 3 rows; MPS adds 2 capped pairs (full share binds the 50% cap).
  EXPECT_EQ(overlap.rows.size(), 2u * 19u + 4u) << log.str();
  int capped = 0;
  for (const auto& r : overlap.rows) {
    ASSERT_EQ(r.size(), 10u);
    EXPECT_EQ(r[3], "H200-141GB");
    EXPECT_EQ(r[9], "1.0000") << "the fake has no interference";
    const double duty = std::stod(r[6]);
    const double waves = r[8] == "50" && r[4] == "1.0000" ? 2 : 1;
    const double expect = 100 / (100 * waves + kOverheadUs + 100 * (1 - duty) / duty);
    EXPECT_NEAR(std::stod(r[7]), expect, 0.01) << r[1];
    capped += r[8] == "50";
  }
  EXPECT_EQ(capped, 4);

  const CsvTable solo = read_csv(out + "/solo.csv");
  EXPECT_EQ(solo.header, kSoloCsvHeader);
  EXPECT_EQ(solo.rows.size(), 11u);  // 11 footprints x 1 kernel length
  EXPECT_EQ(solo.rows.back()[1], "264");
  EXPECT_EQ(solo.rows.back()[3], "200.00");  // two waves
  EXPECT_EQ(solo.rows.back()[4], "10.00");

  const json side = read_json(out + "/probe.json");
  EXPECT_EQ(side["device"]["profile"], "H200-141GB");
  EXPECT_EQ(side["device"]["sm_count"], kSms);
  EXPECT_EQ(side["device"]["compute_mode"], "default");
  EXPECT_EQ(side["device"]["driver_version"], "580.00");
  EXPECT_EQ(side["command_line"], "gpumux-probe --test");
  EXPECT_EQ(side["mps"], "ok");
  EXPECT_TRUE(side["complete"].get<bool>());
  EXPECT_EQ(side["planned"].size(), 1u + 18u);  // solo and the sets
  EXPECT_EQ(side["planned"][0]["item"], "solo");
  EXPECT_TRUE(side["skipped"].empty()) << side["skipped"].dump();
  EXPECT_TRUE(side["errors"].empty()) << side["errors"].dump();
  EXPECT_EQ(side["sets"].size(), 18u);
  EXPECT_FALSE(side["started_utc"].get<std::string>().empty());
  // The daemon was quit and its breadcrumb removed.
  EXPECT_FALSE(fs::exists(out + "/mps_pipe_dir.txt"));
  fs::remove_all(out);
  fs::remove_all(out + "-bin");
}

TEST(ProbeRunner, DeviceIndexesTheVisibleDevicesList) {
  const std::string out = fresh_dir("cvd");
  ProbeOptions o = small_options(out);
  ::setenv("CUDA_VISIBLE_DEVICES", "5,7", 1);
  FakeBackend gpu;
  gpu.expected_device = "7";
  std::ostringstream log;
  o.modes = {"timeslice"};
  o.kernel_us = {100};
  o.sm_share = {1.0};
  o.duty = {1.0};
  o.device = 1;
  ProbeRunner runner(o, gpu, log, fast_times());
  const int rc = runner.run();
  o.device = 2;
  ProbeRunner beyond(o, gpu, log, fast_times());
  EXPECT_THROW(beyond.run(), InputError);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(runner.report().errors.empty()) << runner.report().errors.front();
  EXPECT_FALSE(runner.overlap_rows().empty());
  fs::remove_all(out);
}

TEST(ProbeRunner, WithoutMpsTheMpsItemsAreSkippedWithTheReason) {
  const std::string out = fresh_dir("nomps");
  FakeBackend gpu;
  std::ostringstream log;
  ProbeOptions o = small_options(out);
  o.mixed_pairs = 0;
  o.mixed_triples = 0;
  ProbeRunner runner(o, gpu, log, fast_times(), "/nonexistent/nvidia-cuda-mps-control");
  ASSERT_EQ(runner.run(), 0);
  for (const OverlapResultRow& r : runner.overlap_rows()) EXPECT_EQ(r.mode, "timeslice");
  EXPECT_FALSE(runner.overlap_rows().empty());
  const json side = read_json(out + "/probe.json");
  EXPECT_NE(side["mps"].get<std::string>().find("could not start"), std::string::npos);
  bool mps_pair_skipped = false;
  for (const json& s : side["skipped"]) {
    if (s["item"] == "mps-pair0") {
      mps_pair_skipped =
          s["reason"].get<std::string>().find("MPS unavailable") != std::string::npos;
    }
  }
  EXPECT_TRUE(mps_pair_skipped) << side["skipped"].dump();
  fs::remove_all(out);
}

TEST(ProbeRunner, NoDeviceExitsOneWithTheReasonInTheSidecar) {
  const std::string out = fresh_dir("nodev");
  FakeBackend gpu;
  gpu.fail_query = true;
  std::ostringstream log;
  ProbeRunner runner(small_options(out), gpu, log, fast_times());
  EXPECT_EQ(runner.run(), 1);
  const json side = read_json(out + "/probe.json");
  ASSERT_EQ(side["errors"].size(), 1u);
  EXPECT_NE(side["errors"][0].get<std::string>().find("cudaErrorNoDevice"), std::string::npos);
  EXPECT_EQ(read_csv(out + "/overlap.csv").rows.size(), 0u);
  fs::remove_all(out);
}

TEST(ProbeRunner, ExclusiveProcessModeMeasuresNoTimeSlicingSet) {
  const std::string out = fresh_dir("excl");
  FakeBackend gpu;
  gpu.compute_mode = 3;
  std::ostringstream log;
  ProbeOptions o = small_options(out);
  o.modes = {"timeslice"};
  ProbeRunner runner(o, gpu, log, fast_times());
  ASSERT_EQ(runner.run(), 0);
  EXPECT_TRUE(runner.overlap_rows().empty());
  EXPECT_FALSE(runner.solo_rows().empty());  // one process alone is still allowed
  EXPECT_NE(log.str().find("exclusive"), std::string::npos);
  EXPECT_EQ(runner.report().device.compute_mode, 3);
  fs::remove_all(out);
}

TEST(ProbeRunner, ContainmentResultsLandInTheSidecar) {
  const std::string out = fresh_dir("contain");
  FakeBackend gpu;
  std::ostringstream log;
  ProbeOptions o = small_options(out);
  o.modes = {"timeslice"};
  o.sm_share = {1.0};
  o.duty = {1.0};
  o.containment = true;
  ProbeRunner runner(o, gpu, log, fast_times());
  ASSERT_EQ(runner.run(), 0) << log.str();
  const json side = read_json(out + "/probe.json");
  ASSERT_EQ(side["containment"].size(), 2u) << side.dump(2);
  const json& mem = side["containment"][0];
  EXPECT_EQ(mem["test"], "memory");
  EXPECT_NE(mem["asker_error"].get<std::string>().find("MemoryAllocation"), std::string::npos);
  EXPECT_EQ(mem["asker_request_bytes"].get<uint64_t>(), (uint64_t{41} << 30));
  EXPECT_TRUE(mem["other_ran_on"].get<bool>());
  EXPECT_GT(mem["other_kernels_after"].get<int>(), 0);
  const json& fault = side["containment"][1];
  EXPECT_EQ(fault["test"], "fault");
  EXPECT_EQ(fault["mode"], "timeslice");
  EXPECT_NE(fault["faulting_error"].get<std::string>().find("IllegalAddress"), std::string::npos);
  EXPECT_TRUE(fault["other_survived"].get<bool>());
  // The faulting member exits right after its fault; the other runs to the end (2.5 s).
  EXPECT_LT(fault["faulting_exit_after_fault_s"].get<double>(), 0.5);
  EXPECT_GT(fault["other_exit_after_fault_s"].get<double>(), 1.5);
  fs::remove_all(out);
}

TEST(ProbeRunner, SlowerThanEstimatedRunsStillFinishWithinTheBudget) {
  const std::string out = fresh_dir("budget");
  FakeBackend gpu;
  gpu.prepare_s = 1.0;  // five times the planned process start
  std::ostringstream log;
  ProbeOptions o = small_options(out);
  o.modes = {"timeslice"};
  o.budget_s = 6;
  const double t = monotonic_s();
  ProbeRunner runner(o, gpu, log, fast_times());
  ASSERT_EQ(runner.run(), 0);
  EXPECT_LT(monotonic_s() - t, o.budget_s + 0.5);
  const json side = read_json(out + "/probe.json");
  bool at_run_time = false;
  for (const json& s : side["skipped"]) {
    at_run_time |= s["reason"].get<std::string>().find("budget at run time") != std::string::npos;
  }
  EXPECT_TRUE(at_run_time) << side["skipped"].dump(2);
  EXPECT_FALSE(runner.overlap_rows().empty());
  fs::remove_all(out);
}

TEST(ProbeRunner, DryRunPrintsThePlanAndWritesNothing) {
  const std::string out = fresh_dir("dry");
  FakeBackend gpu;
  gpu.fail_query = true;  // a dry run must not touch the device
  std::ostringstream log;
  ProbeOptions o = small_options(out);
  o.dry_run = true;
  ProbeRunner runner(o, gpu, log, fast_times());
  EXPECT_EQ(runner.run(), 0);
  EXPECT_NE(log.str().find("timeslice-pair0"), std::string::npos);
  EXPECT_FALSE(fs::exists(out));
}

TEST(ProbeRunner, UnusableOutputFolderIsAnInputError) {
  const std::string file = fresh_dir("file");
  std::ofstream(file) << "x";
  FakeBackend gpu;
  std::ostringstream log;
  ProbeRunner runner(small_options(file + "/sub"), gpu, log, fast_times());
  EXPECT_THROW(runner.run(), InputError);
  fs::remove(file);
}

}  // namespace
}  // namespace gpumux::calibration
