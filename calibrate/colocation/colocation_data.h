// Co-location measurements (shared/data/colocation, see its README): Lucid's training configs
// measured alone and pairs of them measured sharing one GPU; Gavel's V100 pairs as a second
// source in the same form.
#pragma once

#include <string>
#include <vector>

namespace gpumux::calibration {

// Identifies a training config; pairs refer to singles by it.
struct ConfigKey {
  std::string model, dataset;
  int batchsize = 0;
  int amp = 0;  // mixed precision on (1) or off (0)
  auto operator<=>(const ConfigKey&) const = default;
};

// One row of lucid_single_data.csv: the config measured alone.
struct SingleConfig {
  ConfigKey key;
  double speed = 0.0;      // iterations (or samples) per second alone; unused by the models
  double gpu_util = 0.0;   // nvidia-smi utilization, percent [0, 100]
  double gmem_util = 0.0;  // memory-controller utilization, percent [0, 100]
  double gmem_mib = 0.0;   // device memory, MiB
  int line = 0;
};

// One row of lucid_pairs_train.csv, joined to its two singles.
struct Pair {
  ConfigKey key1, key2;
  double speed1 = 0.0, speed2 = 0.0;  // each job's speed relative to running alone
  int line = 0;
  const SingleConfig* job1 = nullptr;  // null when key1 has no single row (unmatched)
  const SingleConfig* job2 = nullptr;
  bool matched() const { return job1 != nullptr && job2 != nullptr; }
};

// Throws InputError("file:line", field, ...) for a missing file, a missing column, a row with
// the wrong number of fields or a field that does not parse; duplicate keys are an error too.
std::vector<SingleConfig> load_singles(const std::string& path);

// Joins by (model, dataset, batchsize, amp), comparing batchsize and amp as integers so that
// "32" and "32.0" match. Rows whose keys have no single stay in the result, unmatched; the
// caller must report them. Also rejects gpu_num != 1 (these models are about one GPU).
// `singles` must outlive the result.
std::vector<Pair> load_pairs(const std::string& path, const std::vector<SingleConfig>& singles);

// Gavel's V100 pairs (gavel_simulation_throughputs.json, read by models/mps/gavel_compare.h) in
// the same form. Gavel measured no utilization, so each scale-factor-1 job type becomes a
// SingleConfig {type name, "gavel-v100", 0, 0} whose gpu_util is 100 x the V100 duty cycle that
// gavel_compare derives from its SOLO throughputs alone (Amdahl across K80 -> V100), never from
// the pairs; gmem_util and gmem are unknown (0). Each unordered pair of types measured together
// in both directions is one Pair (speed = pair throughput / solo throughput); pairs that could
// not run together ([0, 0]) are left out and counted. Moving the result keeps the pointers.
struct GavelSource {
  std::vector<SingleConfig> singles;
  std::vector<Pair> pairs;  // all matched
  int skipped_unrunnable = 0;
  int one_direction = 0;  // partners measured only one way round, left out
};
// Throws InputError (file#/pointer) like load_gavel.
GavelSource load_gavel_source(const std::string& path);

}  // namespace gpumux::calibration
