// An LLM endpoint: a vLLM-like engine serving one model on one GPU (or the share of one a
// sharing model gives it), with its engine settings, its performance model and its load
// (docs/llm-serving.md). A service (sim/core/service.h) whose ServiceSpec carries one is
// simulated iteration by iteration (sim/llm/llm_replica.h) instead of as boxes of service_ms.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/llm/iteration_time.h"
#include "sim/llm/llm_shape.h"

namespace gpumux {

// The engine's settings, with vLLM's names and meanings. Resolved values: every field is set
// when the scenario parser (scenarios/llm_endpoint_config.h) hands the spec to the engine.
struct LlmEngineConfig {
  int max_num_seqs = 256;              // sequences in one batch, at most
  int max_num_batched_tokens = 2048;   // tokens (prefill + decode) in one iteration, at most
  std::int64_t max_model_len = 0;      // prompt + output of one request, at most
  bool chunked_prefill = true;         // a prompt may be split over iterations
  int block_size = 16;                 // tokens per KV-cache block
  double gpu_memory_utilization = 0.9; // share of the device's memory the engine takes
  bool cuda_graphs = true;             // decode launches replayed from CUDA graphs
  // Admit a waiting request only when its whole sequence fits the free KV blocks (vLLM 0.19's
  // scheduler_reserve_full_isl, on by default), not only its first chunk.
  bool reserve_full_sequence = true;
  std::int64_t kv_blocks = 0;          // KV-cache blocks the engine's memory leaves, > 0
};

// One request of an LLM load: when it arrives (s from the endpoint's start) and its tokens.
struct LlmRequestRow {
  double arrival_s = 0.0;
  std::int32_t prompt_tokens = 0;  // > 0
  std::int32_t output_tokens = 0;  // > 0
};

// How a generated request draws its token counts: fixed, or a (prompt, output) pair drawn
// uniformly from an empirical list (e.g. a request trace's rows).
struct LlmTokenLengths {
  std::int32_t prompt_tokens = 0;  // fixed counts, used when `pairs` is null
  std::int32_t output_tokens = 0;
  std::shared_ptr<const std::vector<std::pair<std::int32_t, std::int32_t>>> pairs;
};

enum class LlmLoadKind : std::uint8_t {
  kTrace,      // open loop: the rows of a request trace, in order
  kGenerated,  // open loop: arrivals drawn at rate_per_s (Poisson, or gamma with arrival_cv)
  kClosed,     // closed loop: `clients` clients, each sending its next request when the last ends
};

struct LlmLoad {
  LlmLoadKind kind = LlmLoadKind::kGenerated;
  std::shared_ptr<const std::vector<LlmRequestRow>> rows;  // kTrace: sorted by arrival
  double rate_per_s = 0.0;   // kGenerated: mean arrival rate, > 0
  double arrival_cv = 1.0;   // kGenerated: coefficient of variation of gaps (1: Poisson)
  LlmTokenLengths tokens;    // kGenerated and kClosed
  int clients = 0;           // kClosed: > 0
  std::int64_t warmup_requests = 0;    // kClosed: first requests, not measured
  std::int64_t measured_requests = 0;  // kClosed: then these; 0: until the lifetime ends
};

// How the endpoint takes its share of a GPU it shares with other processes (docs/llm-serving.md
// "On shared GPUs"). Resolved by the scenario parser; all optional.
struct LlmSharing {
  // MIG: the instance profile it runs on (empty: none). The time model is then the instance's
  // (its SMs and its memory slices' bandwidth), the KV cache comes from the instance's memory,
  // and the sharing model's rate is not applied on top: the instance is isolated.
  std::string mig_profile;
  // MPS: this client's CUDA_MPS_ACTIVE_THREAD_PERCENTAGE / 100, (0, 1]; 0: the MPS model's.
  double mps_thread_fraction = 0.0;
  // MPS: CUDA_MPS_PINNED_DEVICE_MEM_LIMIT, MiB (allocations beyond it fail); 0: none.
  std::int64_t pinned_memory_limit_mib = 0;
  // A per-engine memory cap (HAMi `gpumem`, KAI `gpu-memory`), MiB: gpu_memory_utilization is
  // a fraction of it; 0: none.
  std::int64_t memory_cap_mib = 0;
};

struct LlmEndpointSpec {
  LlmShape model;
  std::string device;  // the device the performance model was built for
  // GPUs of one node the model is split over (tensor parallelism): 1, 2, 4 or 8. The endpoint
  // job is a gang of that many GPUs; engine_memory_mib and the KV cache are per GPU.
  int tensor_parallel = 1;
  // Device memory the engine takes at start (gpu_memory_utilization x the device's memory): the
  // endpoint job's memory, which the scheduler places.
  std::int64_t engine_memory_mib = 0;
  LlmEngineConfig engine;
  std::shared_ptr<const IterationTimeModel> time_model;  // never null
  // The same model at half the memory bandwidth: the difference is an iteration's
  // memory-bound time, which engines running at once under MPS share (llm_gpu_group.h). Null:
  // the iteration is taken as compute-bound throughout.
  std::shared_ptr<const IterationTimeModel> half_bandwidth_model;
  LlmSharing sharing;
  LlmLoad load;
  double ttft_slo_ms = 0.0;  // goodput: a request meets both objectives; 0: no objective
  double tpot_slo_ms = 0.0;
};

}  // namespace gpumux
