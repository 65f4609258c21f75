#include "analysis/sweep/shard_environment.h"

#include <charconv>
#include <string>

#include "sim/base/input_error.h"

namespace gpumux {

namespace {

const char* const kWhere = "--shard auto";

// The variable `name` as a non-negative integer, or nullopt when it is not set.
std::optional<std::size_t> integer_variable(const EnvironmentLookup& env, const char* name) {
  const char* v = env(name);
  if (v == nullptr) return std::nullopt;
  const std::string text = v;
  std::size_t value = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size()) {
    throw InputError(kWhere, name, "expected a non-negative integer, got '" + text + "'");
  }
  return value;
}

SweepShard checked(SweepShard shard, const std::string& source) {
  if (shard.count == 0 || shard.index >= shard.count) {
    throw InputError(kWhere, "shard",
                     "index " + std::to_string(shard.index) + " is not below the count " +
                         std::to_string(shard.count) + " (" + source + ")");
  }
  return shard;
}

SweepShard from_slurm(const EnvironmentLookup& env, std::size_t id,
                      std::optional<std::size_t> shard_count) {
  const auto min = integer_variable(env, "SLURM_ARRAY_TASK_MIN");
  const auto max = integer_variable(env, "SLURM_ARRAY_TASK_MAX");
  const auto count = integer_variable(env, "SLURM_ARRAY_TASK_COUNT");
  SweepShard shard;
  std::string source;
  if (min && max) {
    if (*max < *min || id < *min || id > *max) {
      throw InputError(kWhere, "SLURM_ARRAY_TASK_ID",
                       std::to_string(id) + " is outside SLURM_ARRAY_TASK_MIN..MAX (" +
                           std::to_string(*min) + ".." + std::to_string(*max) + ")");
    }
    shard = {id - *min, *max - *min + 1};
    if (count && *count != shard.count) {
      throw InputError(kWhere, "SLURM_ARRAY_TASK_COUNT",
                       std::to_string(*count) + " tasks, but MIN..MAX spans " +
                           std::to_string(shard.count) +
                           ": a stepped or sparse array (--array=0-10:2) does not give each "
                           "shard one task; use --array=0-(N-1) or --shard I/N");
    }
    source = "SLURM_ARRAY_TASK_ID - MIN of MAX - MIN + 1";
  } else if (count) {
    shard = {id, *count};
    source = "SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT";
  } else {
    throw InputError(kWhere, "SLURM_ARRAY_TASK_ID",
                     "set, but neither SLURM_ARRAY_TASK_MIN with _MAX nor SLURM_ARRAY_TASK_COUNT "
                     "is: the count of shards is unknown");
  }
  if (shard_count && *shard_count != shard.count) {
    throw InputError(kWhere, "--shard-count",
                     std::to_string(*shard_count) + " disagrees with the Slurm array's " +
                         std::to_string(shard.count) + " tasks (leave --shard-count out)");
  }
  return checked(shard, source);
}

}  // namespace

SweepShard shard_from_environment(const EnvironmentLookup& env,
                                  std::optional<std::size_t> shard_count) {
  const auto slurm_id = integer_variable(env, "SLURM_ARRAY_TASK_ID");
  const auto k8s_index = integer_variable(env, "JOB_COMPLETION_INDEX");
  if (slurm_id && k8s_index) {
    throw InputError(kWhere, "shard",
                     "both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set: which one "
                     "names this task is unclear; give --shard I/N");
  }
  if (slurm_id) return from_slurm(env, *slurm_id, shard_count);
  if (k8s_index) {
    std::optional<std::size_t> count = shard_count;
    std::string source = "JOB_COMPLETION_INDEX of --shard-count";
    if (!count) {
      count = integer_variable(env, "GPUMUX_SHARD_COUNT");
      source = "JOB_COMPLETION_INDEX of GPUMUX_SHARD_COUNT";
    }
    if (!count) {
      throw InputError(kWhere, "--shard-count",
                       "JOB_COMPLETION_INDEX is set but the count of shards is not: give "
                       "--shard-count N or set GPUMUX_SHARD_COUNT to the Job's completions");
    }
    return checked({*k8s_index, *count}, source);
  }
  throw InputError(kWhere, "shard",
                   "no array task found in the environment: expected SLURM_ARRAY_TASK_ID (a "
                   "Slurm array job) or JOB_COMPLETION_INDEX (a Kubernetes Indexed Job); "
                   "elsewhere give --shard I/N");
}

}  // namespace gpumux
