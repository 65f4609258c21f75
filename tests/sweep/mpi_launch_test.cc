// An MPI launch read from the environment, and the refusal of a build without MPI (this test
// build has MPI, so the refusal is checked through the pure function, with `has_mpi` false).
#include "analysis/sweep/mpi_launch.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gpumux {
namespace {

EnvironmentLookup environment(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(MpiLaunch, SeveralRanksFromEachLauncher) {
  EXPECT_FALSE(several_mpi_ranks_in(environment({})));
  EXPECT_TRUE(several_mpi_ranks_in(environment({{"OMPI_COMM_WORLD_SIZE", "3"}})));
  EXPECT_FALSE(several_mpi_ranks_in(environment({{"OMPI_COMM_WORLD_SIZE", "1"}})));
  EXPECT_TRUE(several_mpi_ranks_in(environment({{"PMI_SIZE", "4"}})));
  EXPECT_TRUE(
      several_mpi_ranks_in(environment({{"PMIX_RANK", "0"}, {"SLURM_STEP_NUM_TASKS", "2"}})));
  EXPECT_FALSE(several_mpi_ranks_in(environment({{"PMIX_RANK", "0"}})));
  EXPECT_FALSE(several_mpi_ranks_in(environment({{"OMPI_COMM_WORLD_SIZE", "three"}})));
  EXPECT_EQ(mpi_rank_in(environment({{"OMPI_COMM_WORLD_RANK", "2"}})), 2);
  EXPECT_EQ(mpi_rank_in(environment({{"PMIX_RANK", "5"}})), 5);
  EXPECT_EQ(mpi_rank_in(environment({})), 0);
}

TEST(MpiLaunch, ABuildWithoutMpiRefusesAnMpiLaunchSayingHowToBuildIt) {
  const auto mpirun = environment({{"OMPI_COMM_WORLD_SIZE", "3"}, {"OMPI_COMM_WORLD_RANK", "0"}});
  const auto why = mpi_launch_refusal(mpirun, false);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("built without MPI"), std::string::npos) << *why;
  EXPECT_NE(why->find("-DGPUMUX_WITH_MPI=ON"), std::string::npos) << *why;
  EXPECT_NE(why->find("--shard"), std::string::npos) << *why;
  EXPECT_FALSE(mpi_launch_refusal(mpirun, true).has_value());
  EXPECT_FALSE(mpi_launch_refusal(environment({}), false).has_value());
  EXPECT_FALSE(mpi_launch_refusal(environment({{"PMI_SIZE", "1"}}), false).has_value());
}

}  // namespace
}  // namespace gpumux
