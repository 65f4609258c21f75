// The `llm` object of a service's fields (docs/llm-serving.md "Scenario"): an LLM endpoint's
// model, device, engine settings, performance model and load, resolved into an LlmEndpointSpec
// (sim/llm/llm_endpoint.h).
//
//   "llm": {
//     "model": "Llama-3.1-8B",            // `gpumux llm-models`; the short name is enough
//     "device": "H100-80GB",              // default: the cluster's device, when it has one type
//     "calibration": "cal.json",          // optional: `gpumux calibrate llm-profiles fit` output
//     "engine": {"max_num_seqs": .., "max_num_batched_tokens": .., "max_model_len": ..,
//                "chunked_prefill": true, "block_size": 16, "gpu_memory_utilization": 0.9,
//                "cuda_graphs": true, "num_gpu_blocks_override": ..},
//     "load": {"trace": "requests.csv"}                              // open loop, a trace
//           | {"rate_per_s": 5, "arrival_cv": 1, TOKENS}            // open loop, generated
//           | {"clients": 8, "warmup_requests": 16, "requests": 100, TOKENS}  // closed loop
//       TOKENS: "prompt_tokens": 500, "output_tokens": 200 | "token_lengths": "requests.csv"
//     "ttft_slo_ms": 1000, "tpot_slo_ms": 50     // goodput objectives; optional
//   }
//
// Engine defaults are vLLM's for `vllm serve` (0.19): chunked prefill on, block 16, memory
// utilization 0.9, CUDA graphs on; max_num_batched_tokens 8192 and max_num_seqs 1024 on a
// device of >= 70 GiB that is not an A100, 2048 and 256 otherwise; max_model_len the model's
// max positions. The KV cache gets what the engine's memory leaves after the weights and a
// runtime reserve (kv_cache_blocks below).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenarios/input_file.h"
#include "sim/base/json_fields.h"
#include "sim/core/device.h"
#include "sim/llm/llm_endpoint.h"

namespace gpumux {

// Memory the engine keeps besides weights and KV cache, bytes: the CUDA context and libraries'
// workspaces, the activation peak of a max_num_batched_tokens forward pass, the sampler's
// float32 logits for max_num_seqs sequences, and CUDA graphs' pools when on.
double llm_runtime_reserve_bytes(const LlmShape& model, const LlmEngineConfig& engine);

// KV-cache blocks of `engine` serving `model` on `device`: (device memory x
// gpu_memory_utilization - weights - runtime reserve) / (block_size x KV bytes per token),
// rounded down. Throws InputError at `where` when the weights do not fit or no block does.
std::int64_t kv_cache_blocks(const LlmShape& model, const LlmEngineConfig& engine,
                             const DeviceProfile& device, const std::string& where);

// Parses `o` (the `llm` object). `devices`: the cluster's device types; `base_dir` resolves
// files, each recorded in `files`. Echoes the resolved values into `echo`. Throws InputError
// naming the JSON pointer.
std::shared_ptr<const LlmEndpointSpec> parse_llm_endpoint(JsonObject& o,
                                                          const std::string& base_dir,
                                                          const std::vector<DeviceProfile>& devices,
                                                          nlohmann::json& echo,
                                                          std::vector<InputFile>& files);

// The engine memory an endpoint takes on its GPU, MiB (what the scheduler places).
std::int64_t llm_engine_memory_mib(const LlmEndpointSpec& spec, const DeviceProfile& device);

}  // namespace gpumux
