// `gpumux pack` over several policies and seeds (packing/pack_study.h): the aggregate is the
// mean of the runs it is made of, its intervals hold the mean inside [0, 100], the thread count
// changes nothing, and the folder it writes is drawn by `gpumux report`.
#include "packing/pack_study.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/report/html_report.h"
#include "packing/pack_command.h"
#include "sim/base/input_error.h"
#include "tests/packing/test_util.h"

namespace gpumux::packing {
namespace {

using ::testing::HasSubstr;
using testing::TempFile;

const char* const kStudyNodes = testing::kTinyOpenbNodes;
const char* const kStudyPods = testing::kTinyOpenbPods;

PackStudyRequest study_request(int seeds, int threads) {
  PackStudyRequest r;
  r.policies = {Policy::kFgd, Policy::kBestFit, Policy::kRandom};
  r.seed = 5;
  r.seeds = seeds;
  r.threads = threads;
  return r;
}

TEST(PackStudy, EachPointIsTheMeanOfItsSeedsRunsWithAnIntervalInsideZeroToHundred) {
  TempFile nodes("study_nodes.csv", kStudyNodes), pods("study_pods.csv", kStudyPods);
  const NodeList n = load_openb_nodes(nodes.path());
  const PodList p = load_openb_pods(pods.path());
  const PackStudy study = run_pack_study(n.nodes, p.pods, study_request(4, 1));
  ASSERT_EQ(study.seeds, (std::vector<std::uint64_t>{5, 6, 7, 8}));
  ASSERT_EQ(study.policies.size(), 3u);
  for (const PackStudyPolicy& policy : study.policies) {
    ASSERT_EQ(policy.runs.size(), 4u);
    ASSERT_EQ(policy.curve.size(), 131u);
    // Each seed's run, run again on its own, is the study's.
    for (std::size_t s = 0; s < 4; ++s) {
      PackOptions alone;
      alone.policy = policy.policy;
      alone.seed = study.seeds[s];
      const PackResult r = run_inflation(n.nodes, p.pods, alone);
      EXPECT_EQ(r.allocated_gpu_milli, policy.runs[s].allocated_gpu_milli);
      EXPECT_EQ(r.pods_arrived, policy.runs[s].pods_arrived);
    }
    for (const PackStudyPoint& point : policy.curve) {
      double sum = 0.0;
      std::size_t count = 0;
      for (const PackResult& r : policy.runs) {
        const CurvePoint& c = r.curve[static_cast<std::size_t>(point.arrived_pct)];
        ASSERT_EQ(c.arrived_pct, point.arrived_pct);
        if (c.alloc_pct) {
          sum += *c.alloc_pct;
          ++count;
        }
      }
      EXPECT_EQ(point.alloc_pct.n, count);
      if (count == 0) {
        EXPECT_FALSE(point.alloc_pct.mean);
        continue;
      }
      ASSERT_TRUE(point.alloc_pct.mean);
      EXPECT_NEAR(*point.alloc_pct.mean, sum / static_cast<double>(count), 1e-9);
      EXPECT_LE(point.alloc_pct.low, *point.alloc_pct.mean);
      EXPECT_GE(point.alloc_pct.high, *point.alloc_pct.mean);
      EXPECT_GE(point.alloc_pct.low, 0.0);
      EXPECT_LE(point.alloc_pct.high, 100.0);
    }
  }
  // By 130 % arrived the cluster holds pods under every policy.
  for (const PackStudyPolicy& policy : study.policies) {
    ASSERT_TRUE(policy.curve.back().alloc_pct.mean);
    EXPECT_GT(*policy.curve.back().alloc_pct.mean, 0.0);
  }
}

TEST(PackStudy, OneSeedHasNoIntervalAndThreadsChangeNothing) {
  TempFile nodes("study_nodes_t.csv", kStudyNodes), pods("study_pods_t.csv", kStudyPods);
  const NodeList n = load_openb_nodes(nodes.path());
  const PodList p = load_openb_pods(pods.path());
  const PackStudy one = run_pack_study(n.nodes, p.pods, study_request(1, 1));
  for (const PackStudyPoint& point : one.policies[1].curve) {
    if (!point.alloc_pct.mean) continue;
    EXPECT_EQ(point.alloc_pct.low, *point.alloc_pct.mean);
    EXPECT_EQ(point.alloc_pct.high, *point.alloc_pct.mean);
  }
  const std::string serial = pack_study_csv(run_pack_study(n.nodes, p.pods, study_request(3, 1)));
  EXPECT_EQ(serial, pack_study_csv(run_pack_study(n.nodes, p.pods, study_request(3, 3))));
  EXPECT_EQ(serial.substr(0, serial.find('\n')),
            "policy,arrived_pct,seeds,alloc_pct_mean,alloc_pct_ci95_low,alloc_pct_ci95_high,"
            "frag_pct_mean,frag_pct_ci95_low,frag_pct_ci95_high");
  EXPECT_NE(serial.find("\nFGD,0,"), std::string::npos);
  EXPECT_NE(serial.find("\nRandom,130,"), std::string::npos);
}

TEST(PackStudy, TheCommandWritesAFolderThatReportDraws) {
  TempFile nodes("study_nodes_c.csv", kStudyNodes), pods("study_pods_c.csv", kStudyPods);
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "pack_study_out";
  std::filesystem::remove_all(dir);
  PackCommand cmd;
  cmd.nodes_csv = nodes.path();
  cmd.pods_csv = pods.path();
  cmd.policy = "FGD,BestFit";
  cmd.seeds = 3;
  cmd.threads = 2;
  cmd.out_dir = dir.string();
  cmd.report = true;
  std::ostringstream out, err;
  ASSERT_EQ(run_pack_command(cmd, out, err), 0);
  std::size_t rows = 0;
  for (const char c : out.str()) rows += c == '\n' ? 1 : 0;
  EXPECT_EQ(rows, 1u + 2u * 131u);  // the header, then every arrived % of both policies
  EXPECT_THAT(err.str(),
              HasSubstr("pack: policy FGD, 3 seeds from 42: allocation at 130% arrived"));
  std::ifstream csv(dir / "pack.csv");
  std::stringstream written;
  written << csv.rdbuf();
  EXPECT_EQ(written.str(), out.str());
  ASSERT_TRUE(std::filesystem::exists(dir / "pack.json"));
  ASSERT_TRUE(std::filesystem::exists(dir / "report.html"));
  const std::string page = build_html_report(read_run_and_plan_folders({dir.string()}));
  EXPECT_THAT(page, HasSubstr("gpumux report: pack study"));
  EXPECT_THAT(page, HasSubstr("GPU allocation against arrived GPU request"));
  EXPECT_THAT(page, HasSubstr("allocation at 130% arrived"));
  EXPECT_EQ(page.find("no-data"), std::string::npos);
  // A broken pack.json is bad input naming the file and the place.
  std::ofstream(dir / "pack.json") << R"({"policies": [{"policy": "FGD", "curve": [{}]}]})";
  try {
    read_run_and_plan_folders({dir.string()});
    ADD_FAILURE() << "a curve point without arrived_pct was accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("pack.json#/policies/0/curve/0"));
  }
  std::filesystem::remove_all(dir);
}

TEST(PackStudy, BadPolicyListsAndOptionsAreRefused) {
  TempFile nodes("study_nodes_b.csv", kStudyNodes), pods("study_pods_b.csv", kStudyPods);
  PackCommand cmd;
  cmd.nodes_csv = nodes.path();
  cmd.pods_csv = pods.path();
  std::ostringstream out, err;
  for (const auto& [policy, words] : std::vector<std::pair<std::string, std::string>>{
           {"FGD,FGD", "given twice"}, {"FGD,nope", "unknown policy 'nope'"}, {"FGD,", "''"}}) {
    cmd.policy = policy;
    try {
      run_pack_command(cmd, out, err);
      ADD_FAILURE() << policy << " was accepted";
    } catch (const InputError& e) {
      EXPECT_THAT(std::string(e.what()), HasSubstr(words)) << policy;
    }
  }
  cmd.policy = "FGD";
  cmd.report = true;  // without --out
  EXPECT_THROW(run_pack_command(cmd, out, err), InputError);
  cmd.report = false;
  cmd.seeds = 0;
  EXPECT_THROW(run_pack_command(cmd, out, err), InputError);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace gpumux::packing
