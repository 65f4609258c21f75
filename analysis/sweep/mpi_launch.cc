#include "analysis/sweep/mpi_launch.h"

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace gpumux {

namespace {

std::optional<long> env_number(const EnvironmentLookup& env, const char* name) {
  const char* text = env(name);
  if (!text || !*text) return std::nullopt;
  long value = 0;
  const auto r = std::from_chars(text, text + std::strlen(text), value);
  if (r.ec != std::errc() || *r.ptr != '\0') return std::nullopt;
  return value;
}

const char* process_environment(const char* name) { return std::getenv(name); }

}  // namespace

bool several_mpi_ranks_in(const EnvironmentLookup& env) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const auto n = env_number(env, name)) return *n > 1;
  }
  // PMIx (srun --mpi=pmix) exports the rank only; Slurm says how many tasks the step has.
  if (env("PMIX_RANK")) {
    for (const char* name : {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}) {
      if (const auto n = env_number(env, name)) return *n > 1;
    }
  }
  return false;
}

int mpi_rank_in(const EnvironmentLookup& env) {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    if (const auto n = env_number(env, name)) return static_cast<int>(*n);
  }
  return 0;
}

bool launched_with_several_mpi_ranks() { return several_mpi_ranks_in(process_environment); }

int mpi_rank_from_environment() { return mpi_rank_in(process_environment); }

std::optional<std::string> mpi_launch_refusal(const EnvironmentLookup& env, bool has_mpi) {
  if (has_mpi || !several_mpi_ranks_in(env)) return std::nullopt;
  return std::string(
      "started by an MPI launcher with several ranks, but this gpumux was built without MPI: "
      "each rank would run the whole sweep on its own. Build with MPI (Debian: apt install "
      "libopenmpi-dev openmpi-bin; then cmake -DGPUMUX_WITH_MPI=ON, which fails when MPI is not "
      "found), or run one process with -j N, or array shards with --shard I/N "
      "(docs/sweeps.md)");
}

}  // namespace gpumux
