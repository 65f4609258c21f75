// MISO's experiment with MISO's inputs (bench/validation/miso/RESULTS.md, docs/validation.md):
// the scenario offers the partitions MISO's testbed could set, and on them the MISO-like policy's
// gains against no partitioning and against the best static partition lie within 10 points of
// the published 49% and 16%. The baselines are run here too, so a change that moves them cannot
// leave the regression scenario's JCT bounds checking a stale window.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using json = nlohmann::json;
using testing::run_cli;

std::string miso_scenario() {
  return (testing::source_dir() / "scenarios/examples/miso_trace_100.json").string();
}

json scenario_layouts() {
  return json::parse(testing::read_file(miso_scenario()))["sharing"]["params"]["layouts"];
}

struct Outcome {
  double mean_jct_s = 0.0;
  long rejected = 0;
};

// The MISO scenario with its sharing replaced (as bench/validation/miso/replay.sh runs it).
Outcome run_with_sharing(const json& sharing) {
  const auto r = run_cli({"run", miso_scenario(), "--no-outputs", "--format", "json", "--set",
                          "sharing=" + sharing.dump()});
  EXPECT_EQ(r.code, 0) << sharing.dump() << "\n" << r.err;
  if (r.code != 0) return {std::numeric_limits<double>::quiet_NaN(), 0};
  const json m = json::parse(r.out)["metrics"];
  return {m["jct_s"]["mean"].get<double>(), m["jobs"]["rejected"].get<long>()};
}

TEST(MisoReplay, ScenarioOffersMisosPartitionsOnly) {
  // MISO's partition_code.json: 18 partitions, 13 distinct sets of instances; every GPU starts
  // whole; its driver (470) predates the R510 rule that lets a 4g and a 3g instance coexist.
  const json layouts = scenario_layouts();
  ASSERT_EQ(layouts.size(), 13u);
  EXPECT_EQ(layouts[0], json::array({"7g.40gb"}));
  std::set<std::multiset<std::string>> distinct;
  for (const json& l : layouts) {
    std::multiset<std::string> profiles;
    for (const json& p : l) profiles.insert(p.get<std::string>());
    EXPECT_FALSE(profiles.count("4g.20gb") > 0 && profiles.count("3g.20gb") > 0) << l.dump();
    distinct.insert(profiles);
  }
  EXPECT_EQ(distinct.size(), layouts.size());
}

TEST(MisoReplay, MisoLikePolicyGainsAreWithinTenPointsOfMisos) {
  const json scenario = json::parse(testing::read_file(miso_scenario()));
  const double mine = run_with_sharing(scenario["sharing"]).mean_jct_s;
  const double none = run_with_sharing({{"model", "exclusive"}}).mean_jct_s;
  // The best static partition of MISO's (the whole GPU is "none"), with or without promotion
  // (MISO's static baseline moves a job into a larger instance its GPU frees), among those that
  // reject no job.
  double best_static = std::numeric_limits<double>::infinity();
  for (const json& layout : scenario_layouts()) {
    if (layout == json::array({"7g.40gb"})) continue;
    for (const bool promotion : {false, true}) {
      json params = {{"layout", layout}};
      if (promotion) params["regrow"] = json::object();
      const Outcome o = run_with_sharing({{"model", "mig"}, {"params", params}});
      if (o.rejected == 0) best_static = std::min(best_static, o.mean_jct_s);
    }
  }
  ASSERT_TRUE(std::isfinite(best_static));
  const double vs_none = mine / none - 1.0;
  const double vs_static = mine / best_static - 1.0;
  // MISO: 49% below no partitioning and 16% below the best static partition; measured at seed 1
  // -44.8% and -6.5% (MISO's rule, the scenario's policy).
  EXPECT_GE(vs_none, -0.59);
  EXPECT_LE(vs_none, -0.39);
  EXPECT_GE(vs_static, -0.26);
  EXPECT_LE(vs_static, -0.06);
  EXPECT_LT(best_static, none);  // MISO's order: none, best static, MISO-like
}

}  // namespace
}  // namespace gpumux
