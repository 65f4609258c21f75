// `pack` with a pod list of CPU-only pods: the arrived GPU request can never reach its target,
// so the command fails with a clear error (it used to draw pods without end, to 4 GB), and the
// arrival sequence stops at the shuffled list instead of drawing forever.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "packing/pack_command.h"
#include "packing/packing_sim.h"
#include "sim/base/input_error.h"
#include "tests/packing/test_util.h"

namespace gpumux::packing {
namespace {

using ::testing::HasSubstr;
using testing::TempFile;

TEST(CpuOnlyPods, PackIsAnInputErrorNamingThePodList) {
  TempFile nodes("cpu_only_nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,96000,393216,8,G2\n");
  TempFile pods("cpu_only_pods.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,4000,8192,0,0\np1,2000,4096,0,0\n");
  PackCommand cmd;
  cmd.nodes_csv = nodes.path();
  cmd.pods_csv = pods.path();
  cmd.policy = "FGD";
  std::ostringstream out, err;
  try {
    run_pack_command(cmd, out, err);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(pods.path()));
    EXPECT_THAT(e.what(), HasSubstr("no pod requests a GPU (2 CPU-only pods)"));
  }
  EXPECT_EQ(out.str(), "");
}

TEST(CpuOnlyPods, InflationSequenceIsTheShuffledListOnly) {
  const std::vector<PodSpec> pods = {testing::pod("a", 1000, 0, 0), testing::pod("b", 1000, 0, 0),
                                     testing::pod("c", 1000, 0, 0)};
  PackRng rng(1);
  const auto seq = inflation_sequence(pods, 8 * kGpuMilli, 1.3, rng);
  EXPECT_EQ(seq.size(), pods.size());
}

}  // namespace
}  // namespace gpumux::packing
