// The MPS rate model against Gavel's measured co-location throughputs.
//
// shared/data/colocation/gavel_simulation_throughputs.json (Gavel, OSDI'20) maps a GPU
// generation ("k80", "p100", "v100", and "*_unconsolidated" variants) to job types keyed
// "('ResNet-18 (batch size 16)', 1)" (type, scale factor = GPUs). Each holds "null": the
// throughput alone (steps/s), and for every partner key [own, partner] throughputs when the two
// share one GPU; [0, 0] marks a pair that could not run together (e.g. out of memory). Only
// scale-factor-1 types have nonzero pairs.
//
// The mapping from a job type to MPS model inputs uses its SOLO throughputs only, never the
// pair data (Amdahl across generations): a job spends a GPU part G and a fixed host part c per
// step. Its K80 -> V100 solo speedup s = (c + G) / (c + G / S) with S the speedup of pure GPU
// work gives the GPU share on the K80, x = (1 - 1/s) / (1 - 1/S), and its V100 duty cycle
//     sm_util = (x / S) / ((1 - x) + x / S) = s x / S,  clamped to [min_sm_util, 1].
// S is the largest solo speedup of any type (that type is taken as purely GPU-bound).
// sm_share = 1 for every type (a uniform assumption: data-parallel training kernels at these
// batch sizes launch more blocks than a V100 has SMs), no thread cap, kernels of 1 ms (MPS
// rates do not depend on it, see mps_rates.h), interference 0 (pure model: a nonzero value
// would have to be fitted to these very pairs).
#pragma once

#include <string>
#include <vector>

#include "models/mps/mps_params.h"

namespace gpumux {

struct GavelJobType {
  std::string name;                          // e.g. "ResNet-18 (batch size 16)"
  double k80 = 0.0, p100 = 0.0, v100 = 0.0;  // solo throughputs, steps/s
};

// One job's measured normalized throughput next to a partner on one V100.
struct GavelPairSpeed {
  int job = 0, partner = 0;  // indices into GavelData::types
  double measured = 0.0;     // pair throughput / solo throughput
};

struct GavelData {
  std::vector<GavelJobType> types;  // scale factor 1 only
  std::vector<GavelPairSpeed> v100_pairs;
  int skipped_unrunnable = 0;  // [0, 0] entries
};

// Reads the file; throws InputError (file#/pointer) when its shape is not the one above.
GavelData load_gavel(const std::string& path);

struct GavelMapping {
  double gpu_speedup = 0.0;   // S; <= 0: the largest solo K80 -> V100 speedup in the data
  double sm_share = 1.0;      // every type
  double min_sm_util = 0.05;  // clamp for types that do not speed up at all
  MpsParams params;           // interference 0 by default
};

// MPS inputs of every type under `mapping` (same order as data.types).
std::vector<MpsJob> map_gavel_types(const GavelData& data, const GavelMapping& mapping);

struct GavelComparison {
  double mae = 0.0;          // mean |predicted - measured| over job speeds
  double bias = 0.0;         // mean (predicted - measured)
  double mae_none = 0.0;     // baseline: predict 1 (no slowdown)
  double gpu_speedup = 0.0;  // S used
  int speeds = 0;
  std::vector<double> predicted;  // per data.v100_pairs entry
};

GavelComparison compare_gavel(const GavelData& data, const GavelMapping& mapping);

}  // namespace gpumux
