// `gpumux plan --fleet`: for LLM endpoints, which endpoints share which GPU (and which MIG
// instance, which MPS share, which memory share), per sharing model, searched one GPU at a time
// and verified by simulation (docs/planning.md "LLM fleets").
//
// Per model, by its form (analysis/fleet/fleet_form.h, read from its capabilities), as
// exclusive, mig, mps and timeslice run today:
//   exclusive  one endpoint per GPU (the savings baseline);
//   mig        each endpoint on the minimal MIG instance profiles it meets its objectives on
//              alone (instances are isolated, so alone is how it runs beside others); a GPU
//              takes a group when some choice of those profiles places validly on the device;
//   mps        a GPU's k endpoints as MPS clients with the device plugin's equal shares:
//              CUDA_MPS_ACTIVE_THREAD_PERCENTAGE floor(100/k), a pinned memory limit of 1/k of the
//              device, gpu_memory_utilization floor(90/k) %;
//   timeslice  a GPU's k endpoints time-sliced, gpu_memory_utilization floor(90/k) % each.
// Under mps and timeslice a group works when its endpoints, simulated together on one GPU, all
// meet their objectives. The fewest groups come from analysis/fleet/endpoint_groups.h (exact
// within its budget: every partition up to kExactSearchLimit endpoints, beyond it every cover by
// the working groups it lists). GPUs do not interact for endpoints of one GPU each, so a
// group's run is the fleet's for its GPU; the whole fleet is then run once more as one scenario
// (the form `--out` writes for `gpumux run`) and every endpoint's objective values must equal
// its group's, or the answer is marked unverified.
//
// Tensor parallelism: an endpoint over N GPUs (llm.tensor_parallel) is a gang of N whole GPUs
// of one node that it has to itself under every model (MIG leaves them whole); gangs are placed
// first, widest first, so none straddles a node.
//
// Replicas: an endpoint that misses an objective alone on a whole GPU is split into the fewest
// round-robin replicas (llm.load.round_robin, up to 16) that each meet every objective alone on a
// whole GPU; the replicas are then placed as endpoints of their own under every model, each held
// to its endpoint's objectives on its own requests (so the endpoint's percentiles are within
// them too).
//
// Also per answer: one GPU fewer (its two least-loaded single GPUs merged and run), each
// endpoint's headroom (its GPU's loads at kHeadroomSteps times), and with `seeds` every group
// held under every seed.
//
// Plain services (services.by_id without `llm`: a service time per request, e.g. vision models)
// are placed beside the LLM endpoints, on GPUs of their own under mps and timeslice: the engine
// model simulates a GPU's LLM engines together, and an engine beside a plain service would fall
// back to a fluid rate, planned with less faithful numbers. Under mig they may take instances
// of one GPU with engines (instances are isolated). They are not replicated (one that misses
// alone on a whole GPU is reported as such). Under mps a plain service's client gets
// mps_active_thread_percentage 100/k and a pinned memory limit (memory_limit_mib) of 1/k of the
// device, as the LLM engines do.
//
// Objectives: per endpoint only (`METRIC<=X for SELECTOR`; a request metric without a selector
// applies to every endpoint that reports it: token metrics to LLM endpoints only). Always
// applied: requests.refused<=0 (LLM endpoints) and requests.dropped<=0 for every endpoint (a
// refused or dropped request misses every objective).
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/fleet/fleet_form.h"
#include "analysis/plan/objective.h"

namespace gpumux {

struct FleetRequest {
  std::string scenario_file;
  std::vector<std::string> sets;  // --set overrides, applied first
  std::optional<std::uint64_t> seed;
  std::vector<std::string> models;      // empty: exclusive, mig, mps, timeslice
  std::vector<std::string> objectives;  // as written; parsed by run_fleet_plan
  std::string scratch_dir;              // where group traces go; "": a temporary folder
  int threads = 1;                      // >= 1: models searched at once
  int seeds = 1;  // >= 1: every group must meet under seeds seed, seed + 1, ... (generated loads)
};

// One endpoint's place and predicted numbers in an answer.
struct FleetEndpoint {
  std::string id;
  std::string service_class;
  std::string llm_model;
  int tensor_parallel = 1;  // GPUs it spans from `gpu`
  int gpu = -1;             // its (first) GPU among the answer's GPUs; -1: not placed
  std::string mig_profile;  // mig: its instance
  double gpu_memory_utilization = 0.0;
  int mps_thread_percentage = 0;  // mps: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
  std::int64_t mps_memory_limit_mib = 0;
  // From its group's run: TTFT/TPOT p50/p99 (ms), output tokens/s (NaN: n/a, e.g. for a plain
  // service); request latency p50/p99 (ms, every service's).
  double ttft_p50_ms = 0, ttft_p99_ms = 0, tpot_p50_ms = 0, tpot_p99_ms = 0;
  double latency_p50_ms = 0, latency_p99_ms = 0;
  bool plain = false;  // a plain service (no engine), not an LLM endpoint
  double output_tokens_per_s = 0;
  // Each objective that applies to it: its value and bound, met or not (group run).
  struct Check {
    std::string objective;  // as written, normalised
    double value = 0.0;
    bool met = false;
  };
  std::vector<Check> checks;
  // Its engine's settings as the whole-fleet run resolved them (docs/llm-serving.md: the
  // `llm.engine` echo: gpu_memory_utilization, max_model_len, max_num_seqs, ...).
  nlohmann::json engine;
  // Its whole `llm` echo in that run (load as read, engine, performance model, calibration), or
  // a plain service's services.by_id echo with its trace row's GPU columns under `row`: what
  // its numbers assume (fleet_assumptions, fleet_output.h).
  nlohmann::json llm_echo;
  // Headroom: the largest load multiplier of kHeadroomSteps at which it still meets every
  // objective, its GPU's endpoints all scaled together (1: it misses at the first step);
  // headroom_open: it met at every step, so its headroom is at least that; NaN: not probed (a
  // plain service whose arrivals do not scale).
  double headroom = 1.0;
  bool headroom_open = false;
  std::string parent;  // the scenario's endpoint this is a replica of (== id without replicas)
  int replica = 0, replicas = 1;
  // From the whole-fleet run (fleet.json and the report): its TTFT and TPOT CDFs, (ms, share of
  // its served requests at or below); the share of the run its engine was busy; the mean share
  // of its KV cache in use while busy (NaN: n/a).
  std::vector<std::pair<double, double>> ttft_cdf_ms, tpot_cdf_ms;
  double served_requests = 0.0;  // what its CDFs are over
  double busy_share = std::numeric_limits<double>::quiet_NaN();
  double kv_cache_use = std::numeric_limits<double>::quiet_NaN();
  // Memory, MiB: its weights + runtime reserve, and all its engine claims
  // (gpu_memory_utilization x its GPU's or instance's memory; the KV cache is the rest).
  double fixed_mib = 0.0;
  double engine_memory_mib = 0.0;
};

// The load multipliers headroom is probed at, in order.
inline constexpr double kHeadroomSteps[] = {1.25, 1.5, 2.0};

// One group of the answer: one GPU, or a tensor-parallel endpoint's gang of whole GPUs.
struct FleetGpu {
  int first = 0;  // the index of its (first) GPU among the answer's GPUs
  int width = 1;  // GPUs it spans
  std::vector<int> endpoints;           // indices into FleetAnswer::endpoints
  std::vector<std::string> mig_layout;  // mig: the instances, in the endpoints' order
  double output_tokens_per_s = 0.0;
  // From the whole-fleet run: the share of the run the GPU was busy, its SMs busy and its memory
  // bandwidth busy, where its endpoints were simulated together (mps, timeslice; NaN
  // otherwise: then each endpoint's busy_share says it).
  double gpu_busy = std::numeric_limits<double>::quiet_NaN();
  double sm_busy = std::numeric_limits<double>::quiet_NaN();
  double bandwidth_busy = std::numeric_limits<double>::quiet_NaN();
};

// A miss: which endpoint, which objective, its value against the bound.
struct FleetMiss {
  std::string endpoint;
  std::string objective;
  double value = 0.0;
  double bound = 0.0;
  std::string text() const;  // "llm-3 requests.ttft_ms.p99 1234.5 > 1000"
};

struct FleetAnswer {
  std::string model;
  FleetForm form = FleetForm::kWhole;  // how the model runs a GPU's endpoints
  bool met = false;                    // every endpoint placed, every objective met, and verified
  std::vector<FleetGpu> gpus;
  std::vector<FleetEndpoint> endpoints;  // in the scenario's order
  bool exact = false;                    // the fewest GPUs over every partition
  // Beyond the small exact search (analysis/fleet/endpoint_groups.h): how the answer was found
  // (working groups listed, first fit's count, or the budget that ran out); empty otherwise.
  std::string search_note;
  int groups_simulated = 0;  // simulations run for this answer (search, check, headroom)
  // Endpoints that miss an objective alone (a whole GPU, or mig's largest profile): no GPU
  // of this model carries them; replicas are not planned.
  std::vector<FleetMiss> alone_misses;
  // One GPU fewer: the answer's two GPUs of least output tokens/s merged, run, and the first
  // miss (empty when the answer has one GPU, or the merge does not place).
  std::optional<FleetMiss> one_fewer_miss;
  std::string one_fewer_note;  // what was tried at one GPU fewer, in words
  bool verified = false;
  std::string verification;  // what the whole-fleet run showed, in words
  nlohmann::json scenario;   // the whole fleet as a scenario document (what --out writes)
  std::string trace_csv;     // its trace
  // GPUs in all (a gang counts its width).
  int gpu_count() const {
    int n = 0;
    for (const auto& g : gpus) n += g.width;
    return n;
  }
  int nodes(int gpus_per_node) const {
    return gpus_per_node <= 0 ? 0 : (gpu_count() + gpus_per_node - 1) / gpus_per_node;
  }
};

struct FleetResult {
  std::string scenario_name;
  std::string scenario_file;
  std::uint64_t seed = 0;
  std::string device;
  std::vector<std::string> device_pci_ids;  // mig-parted's ids of the device (deploy filters)
  std::int64_t device_memory_mib = 0;
  int gpus_per_node = 0;
  std::vector<Objective> objectives;
  std::vector<std::string> endpoint_ids;  // the scenario's endpoints
  int plain_services = 0;                 // of them, plain services (no engine)
  // Endpoints split into round-robin replicas (each meets every objective alone on a whole
  // GPU; the fewest such, up to 16): id and replica count.
  std::vector<std::pair<std::string, int>> replicas;
  std::vector<FleetAnswer> answers;  // in the order asked
  // Memory-only packing: first fit by weights + runtime reserve + the KV cache the endpoint
  // held at its peak alone on a whole GPU, into 90 % of the device; what simulating adds.
  int naive_gpus = 0;
  std::optional<FleetMiss> naive_miss;  // that packing, run under timeslice: the first miss
  std::vector<std::string> notes;
  bool all_met() const;
};

// Throws InputError for a bad scenario (not every service an LLM endpoint of one GPU, several
// device types, a pool), an unknown model or a bad objective.
FleetResult run_fleet_plan(const FleetRequest& request, std::ostream* progress);

}  // namespace gpumux
