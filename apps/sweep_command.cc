// `gpumux sweep` and `gpumux merge`: their options and exit codes (0 every run ended, 3 some run
// failed: recorded, listed, the others merged; 2 bad input).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

#include "analysis/output/output_folder.h"
#include "analysis/sweep/mpi_launch.h"
#include "analysis/sweep/shard_environment.h"
#include "analysis/sweep/sweep.h"
#include "analysis/sweep/sweep_merge.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "sim/base/input_error.h"
#ifdef GPUMUX_HAVE_MPI
#include "analysis/sweep/sweep_mpi.h"
#endif

namespace gpumux {

namespace {

struct SweepCommand {
  std::string sweep_file;
  std::string out_dir;
  int threads = 0;  // 0: the machine's hardware threads
  std::string shard;
  std::optional<std::size_t> shard_count;  // --shard-count, for --shard auto
  bool retry_failed = false;
  std::string format = "table";
  CLI::Option* threads_option = nullptr;
};

struct MergeCommand {
  std::string dir;
  bool partial = false;
  std::string format = "table";
};

int print_merge(const SweepMerge& merge, const std::string& dir, const std::string& format,
                std::ostream& out, std::ostream& err) {
  write_sweep_merge(merge, dir);
  err << "[gpumux] wrote " << (std::filesystem::path(dir) / "sweep.csv").string() << ", "
      << (std::filesystem::path(dir) / "sweep.json").string() << "\n";
  if (format == "json") {
    out << sweep_merge_to_json(merge).dump(2) << "\n";
  } else {
    print_sweep_table(merge, out);
  }
  return merge.failures.empty() && merge.missing.empty() ? kExitOk : kExitCheckFailed;
}

void configure_sweep_options(CLI::App& sub, SweepCommand& a) {
  sub.add_option("sweep", a.sweep_file,
                 "sweep JSON file: scenarios and axes (models, seeds, any --set path) expanded "
                 "to indexed runs (docs/sweeps.md)")
      ->required();
  sub.add_option("--out", a.out_dir,
                 "the sweep's folder: DIR/runs/NNNNNN/ per run, DIR/sweep.csv and "
                 "DIR/sweep.json; a sweep into a folder that has some runs finished runs only "
                 "the others")
      ->required()
      ->check(non_empty());
  a.threads_option =
      sub.add_option("-j,--threads", a.threads,
                     "runs at once (default: the machine's hardware threads); the output does "
                     "not depend on it. Under MPI each worker rank runs one run at a time.")
          ->check(CLI::Range(1, 1024));
  sub.add_option("--shard", a.shard,
                 "I/N: run only the runs whose index % N == I, no merge; then gpumux merge DIR. "
                 "auto: I and N from a Slurm array job (SLURM_ARRAY_TASK_ID with "
                 "SLURM_ARRAY_TASK_MIN/MAX or SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed "
                 "Job (JOB_COMPLETION_INDEX, N from --shard-count or GPUMUX_SHARD_COUNT)");
  sub.add_option("--shard-count", a.shard_count,
                 "with --shard auto: N, the count of shards (a Kubernetes Indexed Job's "
                 "completions; under Slurm it must match the array)")
      ->check(integer_in(1, 1u << 30));
  sub.add_flag("--retry-failed", a.retry_failed,
               "run again the runs that failed before (default: a recorded failure is a result "
               "and is skipped like a finished run)");
  sub.add_option("--format", a.format, "the printed summary: table (default) or json (sweep.json)")
      ->check(CLI::IsMember({"table", "json"}));
  sub.footer(
      "Started by mpirun or srun with several ranks, rank 0 hands the runs out and the other "
      "ranks run them (docs/sweeps.md).\n"
      "Example: gpumux sweep scenarios/sweeps/queues_tiny.json --out out/sweep -j 2\n"
      "Exit codes: 0 every run ended, 3 some run failed (its error is recorded in "
      "DIR/runs/NNNNNN/error.json and listed; the sweep went on), 2 bad input (nothing is run), "
      "1 internal error.");
}

void configure_merge_options(CLI::App& sub, MergeCommand& a) {
  sub.add_option("dir", a.dir, "a sweep's folder (gpumux sweep --out DIR)")->required();
  sub.add_flag("--partial", a.partial,
               "merge even when some runs have no result yet (they are listed as missing; "
               "exit 3)");
  sub.add_option("--format", a.format, "the printed summary: table (default) or json (sweep.json)")
      ->check(CLI::IsMember({"table", "json"}));
  sub.footer(
      "Writes DIR/sweep.csv (variant,seed,metric,value, as compare.csv) and DIR/sweep.json in "
      "run-index order: the same bytes whatever ran the runs (threads, MPI ranks, shards).\n"
      "Exit codes: 0 every run ended, 3 some run failed (or is missing, with --partial), 2 bad "
      "input (not a sweep folder, runs missing), 1 internal error.");
}

int run_sweep_command(const SweepCommand& a, std::ostream& out, std::ostream& err) {
#ifdef GPUMUX_HAVE_MPI
  constexpr bool kHaveMpi = true;
#else
  constexpr bool kHaveMpi = false;
#endif
  // Without MPI, each rank of `mpirun -np N` would run the whole sweep into the same folder.
  if (const auto why =
          mpi_launch_refusal([](const char* name) { return std::getenv(name); }, kHaveMpi)) {
    if (mpi_rank_from_environment() != 0) return kExitBadInput;  // rank 0 alone says so
    throw InputError("gpumux sweep", "", *why);
  }
  SweepRequest request;
  request.sweep_file = a.sweep_file;
  request.out_dir = a.out_dir;
  request.threads = a.threads > 0
                        ? a.threads
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  request.retry_failed = a.retry_failed;

#ifdef GPUMUX_HAVE_MPI
  if (launched_with_several_mpi_ranks()) {
    // Options wrong under MPI are wrong on every rank: rank 0 alone says so.
    const bool speaks = mpi_rank_from_environment() == 0;
    if (!a.shard.empty()) {
      if (!speaks) return kExitBadInput;
      throw InputError("--shard " + a.shard, "shard",
                       "not with MPI: the ranks share the runs already (use one or the other)");
    }
    if (a.threads_option && a.threads_option->count() > 0 && a.threads != 1) {
      if (!speaks) return kExitBadInput;
      throw InputError("-j " + std::to_string(a.threads), "threads",
                       "not with MPI: each worker rank runs one run at a time (start more ranks)");
    }
    request.threads = 1;
    const MpiSweepOutcome outcome = run_sweep_mpi(request, &err);
    if (outcome.failed_elsewhere) return kExitBadInput;
    if (!outcome.coordinator) return kExitOk;
    return print_merge(merge_sweep(a.out_dir, outcome.counts.unrecorded > 0), a.out_dir, a.format,
                       out, err);
  }
#endif
  if (a.shard_count && a.shard != "auto") {
    throw InputError("--shard-count", "shard-count", "only with --shard auto");
  }
  if (a.shard == "auto") {
    request.shard =
        shard_from_environment([](const char* name) { return std::getenv(name); }, a.shard_count);
  } else if (!a.shard.empty()) {
    request.shard = parse_sweep_shard(a.shard);
  }

  // One process per sweep folder, or per shard of it, at a time: DIR.lock, DIR.shard-I-of-N.lock.
  std::string base = std::filesystem::path(a.out_dir).lexically_normal().string();
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  const std::string lock_path = request.shard
                                    ? base + ".shard-" + std::to_string(request.shard->index) +
                                          "-of-" + std::to_string(request.shard->count)
                                    : a.out_dir;
  const FolderLock lock(lock_path);
  const SweepCounts counts = run_sweep_locally(request, &err);
  if (request.shard) {
    out << "shard " << request.shard->index << "/" << request.shard->count << ": " << counts.share
        << " of " << counts.total << " runs, " << counts.ran << " run now (" << counts.failed
        << " failed), " << counts.skipped << " finished before; gpumux merge " << a.out_dir
        << " once every shard is done\n";
    return counts.failed == 0 ? kExitOk : kExitCheckFailed;
  }
  return print_merge(merge_sweep(a.out_dir, counts.unrecorded > 0), a.out_dir, a.format, out, err);
}

int run_merge_command(const MergeCommand& a, std::ostream& out, std::ostream& err) {
  return print_merge(merge_sweep(a.dir, a.partial), a.dir, a.format, out, err);
}

}  // namespace

void configure_sweep_command(CLI::App& sub, CommandContext& ctx) {
  auto a = std::make_shared<SweepCommand>();
  configure_sweep_options(sub, *a);
  set_action(sub, ctx, a, run_sweep_command);
}

void configure_merge_command(CLI::App& sub, CommandContext& ctx) {
  auto a = std::make_shared<MergeCommand>();
  configure_merge_options(sub, *a);
  set_action(sub, ctx, a, run_merge_command);
}

}  // namespace gpumux
