// Whether an MPI launcher (mpirun, srun) started this process, read from the environment the
// launcher sets before MPI starts. Built with or without MPI: a build without it must still
// notice `mpirun -np 3 gpumux sweep` and refuse it, since each rank would otherwise run the
// whole sweep on its own into the same folder.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace gpumux {

// An environment: the value of a variable, or nullptr when it is not set (std::getenv).
using EnvironmentLookup = std::function<const char*(const char*)>;

// True when the launcher started this process with more than one rank: OMPI_COMM_WORLD_SIZE
// or PMI_SIZE above 1, or PMIX_RANK with SLURM_STEP_NUM_TASKS (or SLURM_NTASKS) above 1.
bool several_mpi_ranks_in(const EnvironmentLookup& env);

// This process's rank as the environment gives it (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK);
// 0 when none does.
int mpi_rank_in(const EnvironmentLookup& env);

// The two above on this process's environment.
bool launched_with_several_mpi_ranks();
int mpi_rank_from_environment();

// Why `gpumux sweep` cannot run here: launched with several ranks by a build without MPI
// (`has_mpi` false). The text says the build lacks MPI and how to build it; nullopt when the
// launch is fine (no launcher, one rank, or a build with MPI).
std::optional<std::string> mpi_launch_refusal(const EnvironmentLookup& env, bool has_mpi);

}  // namespace gpumux
