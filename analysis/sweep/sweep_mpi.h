// `mpirun -np N gpumux sweep ...` (or `srun`): one sweep over N MPI ranks. Built only when
// CMake finds MPI (GPUMUX_WITH_MPI); this header names no MPI type, so the command line
// compiles without MPI.
//
// Rank 0 coordinates: it loads the sweep, prepares and locks DIR, and hands out the pending
// run indices one at a time to whichever worker asks next, so runs whose times differ a
// hundredfold still keep every worker busy. Ranks 1..N-1 are workers: each loads the same
// sweep file, runs the index it is given and writes the run's folder into DIR itself (a
// filesystem shared by all ranks is assumed, as on every HPC cluster), then reports the outcome
// (index, ok or failed) and asks for the next. A failed run is recorded in its folder
// (error.json) like any result and the sweep goes on. Rank 0 runs nothing itself (start one
// rank more than the cores you want busy); it prints progress and, at the end, merges.
//
// Only MPI_Init, rank, size, one MPI_Allgather at the start (did every rank load the sweep?)
// and point-to-point messages on MPI_COMM_WORLD are used, so the same binary works under
// mpirun and under Slurm's srun. Waiting ranks poll with short sleeps instead of spinning in
// MPI_Recv, so an oversubscribed node keeps its cores for the runs.
#pragma once

#include <ostream>

#include "analysis/sweep/mpi_launch.h"
#include "analysis/sweep/sweep.h"

namespace gpumux {

struct MpiSweepOutcome {
  bool coordinator = false;  // rank 0: merge and print
  SweepCounts counts;        // on rank 0
  // Another rank could not load the sweep (its error is on its own stderr); this rank ends
  // with the bad-input exit code without printing.
  bool failed_elsewhere = false;
};

// Runs the sweep over MPI_COMM_WORLD (initializes and finalizes MPI). Throws InputError for a
// bad sweep file or DIR on the rank that found it, after telling the others; they return
// failed_elsewhere. Precondition: no --shard and threads == 1.
MpiSweepOutcome run_sweep_mpi(const SweepRequest& request, std::ostream* progress);

}  // namespace gpumux
