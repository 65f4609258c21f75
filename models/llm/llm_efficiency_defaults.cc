#include "models/llm/llm_efficiency_defaults.h"

#include <stdexcept>
#include <string_view>

namespace gpumux {

namespace {

struct Value {
  std::string_view name;  // an llm_efficiency_fields() name
  double value;
  bool fitted;  // fitted on this device's profiles (false: carried over from another device)
};

struct Row {
  std::string_view device;
  std::string_view source;
  std::vector<Value> values;  // the others keep LlmEfficiency's stated defaults
  // A device without profiles of its own takes this fitted device's values, none of them
  // marked fitted (`values` is then empty).
  std::string_view carried_from = {};
};

// Produced by the commands in each row's source (docs/llm-performance-model.md has their fit
// reports), run from the source root with ../shared/data beside it; values rounded to 6
// significant digits. The host overheads are stated everywhere: no profile measures them.
// clang-format off
const std::vector<Row>& table() {
  static const std::vector<Row> rows = {
      {"A100-40GB",
       "carried over from A100-80GB (the same GPU with less, slower memory; no "
       "profile of A100-40GB): its efficiencies, unfitted here, on this device's own "
       "peaks",
       {},
       "A100-80GB"},
      {"A100-80GB",
       "fitted: gpumux calibrate llm-profiles fit "
       "../shared/data/llm-serving/vidur-profiles/compute/a100/meta-llama/"
       "Llama-2-7b-hf "
       "../shared/data/llm-serving/vidur-profiles/compute/a100/meta-llama/"
       "Meta-Llama-3-8B "
       "../shared/data/llm-serving/vidur-profiles/compute/a100/codellama/"
       "CodeLlama-34b-Instruct-hf "
       "../shared/data/llm-serving/vidur-profiles/compute/a100/meta-llama/"
       "Llama-2-70b-hf "
       "../shared/data/llm-serving/vidur-profiles/compute/a100/microsoft/phi-2 "
       "../shared/data/llm-serving/vidur-profiles/compute-legacy-2024-05/a100 "
       "--device A100-80GB; the sampler and mixed-batch decode attention were not "
       "profiled: RTX-PRO-6000's fitted values carried over (unfitted); host "
       "overheads stated",
       {{"gemm_latency_us", 7.02586, true},
        {"gemm_compute_efficiency", 0.723173, true},
        {"gemm_half_tokens", 1.09986e-06, true},
        {"gemm_memory_efficiency", 0.858308, true},
        {"gemm_knee_exponent", 1.46372, true},
        {"elementwise_latency_us", 4.12747, true},
        {"elementwise_memory_efficiency", 0.530774, true},
        {"prefill_attention_latency_us", 7.0063, true},
        {"prefill_attention_compute_efficiency", 0.398095, true},
        {"prefill_attention_half_chunk", 1.0467e-06, true},
        {"prefill_attention_half_row", 1072.35, true},
        {"decode_attention_latency_us", 15.9199, true},
        {"decode_attention_per_seq_us", 0.00761955, true},
        {"decode_attention_memory_efficiency", 0.77471, true},
        {"decode_attention_half_seqs", 0.932991, true},
        {"mixed_decode_per_seq_us", 0.486885, false},
        {"mixed_decode_memory_efficiency", 0.424024, false},
        {"sampler_latency_us", 22.5067, false},
        {"sampler_memory_efficiency", 0.72069, false}}},
      {"H100-80GB",
       "fitted GEMMs and elementwise: gpumux calibrate llm-profiles fit "
       "../shared/data/llm-serving/vidur-profiles/compute/h100/meta-llama/"
       "Llama-2-7b-hf "
       "../shared/data/llm-serving/vidur-profiles/compute/h100/codellama/"
       "CodeLlama-34b-Instruct-hf "
       "../shared/data/llm-serving/vidur-profiles/compute/h100/meta-llama/"
       "Llama-2-70b-hf "
       "../shared/data/llm-serving/vidur-profiles/compute/h100/microsoft/phi-2 "
       "--device H100-80GB; no H100 attention profile: A100-80GB's fitted attention "
       "efficiencies carried over (unfitted); sampler and mixed-batch decode "
       "attention: RTX-PRO-6000's (unfitted); host overheads stated",
       {{"gemm_latency_us", 7.05291, true},
        {"gemm_compute_efficiency", 0.733492, true},
        {"gemm_half_tokens", 140.56, true},
        {"gemm_memory_efficiency", 0.938124, true},
        {"gemm_knee_exponent", 7.53508, true},
        {"elementwise_latency_us", 3.48485, true},
        {"elementwise_memory_efficiency", 0.622438, true},
        {"prefill_attention_latency_us", 7.0063, false},
        {"prefill_attention_compute_efficiency", 0.398095, false},
        {"prefill_attention_half_chunk", 1.0467e-06, false},
        {"prefill_attention_half_row", 1072.35, false},
        {"prefill_attention_memory_efficiency", 0.7, false},
        {"decode_attention_latency_us", 15.9199, false},
        {"decode_attention_per_seq_us", 0.00761955, false},
        {"decode_attention_memory_efficiency", 0.77471, false},
        {"decode_attention_half_seqs", 0.932991, false},
        {"decode_attention_compute_efficiency", 0.3, false},
        {"mixed_decode_per_seq_us", 0.486885, false},
        {"mixed_decode_memory_efficiency", 0.424024, false},
        {"sampler_latency_us", 22.5067, false},
        {"sampler_memory_efficiency", 0.72069, false}}},
      {"H100-94GB",
       "carried over from H100-80GB (the same Hopper GPU; no profile of H100-94GB): "
       "its efficiencies, unfitted here, on this device's own peaks",
       {},
       "H100-80GB"},
      {"H200-141GB",
       "carried over from H100-80GB (the same Hopper GPU with more, faster memory; no "
       "profile of H200-141GB): its efficiencies, unfitted here, on this device's own "
       "peaks",
       {},
       "H100-80GB"},
      {"B200-180GB",
       "carried over from H100-80GB (the closest fitted datacenter HBM GPU; no "
       "profile of B200-180GB): its efficiencies, unfitted here, on this device's own "
       "peaks",
       {},
       "H100-80GB"},
      {"RTX4090",
       "fitted: gpumux calibrate llm-profiles fit "
       "../shared/data/llm-serving/llmservingsim/profiler/perf/RTX4090/meta-llama/"
       "Llama-3.1-8B/bf16/tp1 --device RTX4090 --model Llama-3.1-8B (host overheads "
       "stated)",
       {{"gemm_latency_us", 6.20659, true},
        {"gemm_compute_efficiency", 0.986797, true},
        {"gemm_half_tokens", 38.0249, true},
        {"gemm_memory_efficiency", 0.933055, true},
        {"gemm_knee_exponent", 4.08074, true},
        {"elementwise_latency_us", 2.08474, true},
        {"elementwise_memory_efficiency", 2.27993, true},
        {"prefill_attention_latency_us", 2.39131, true},
        {"prefill_attention_compute_efficiency", 1.01645, true},
        {"prefill_attention_half_chunk", 242.506, true},
        {"prefill_attention_half_row", 224.521, true},
        {"prefill_attention_memory_efficiency", 0.7, false},
        {"decode_attention_latency_us", 11.8276, true},
        {"decode_attention_per_seq_us", 0.180413, true},
        {"decode_attention_memory_efficiency", 0.905506, true},
        {"decode_attention_half_seqs", 1e-06, true},
        {"decode_attention_compute_efficiency", 0.3, false},
        {"mixed_decode_per_seq_us", 1.08251, true},
        {"mixed_decode_memory_efficiency", 0.371648, true},
        {"sampler_latency_us", 21.2628, true},
        {"sampler_memory_efficiency", 0.731692, true},
        {"iteration_overhead_us", 1000, false},
        {"eager_extra_overhead_us", 1000, false},
        {"eager_launch_us_per_layer", 60, false}}},
      {"RTX-PRO-6000",
       "fitted: gpumux calibrate llm-profiles fit "
       "../shared/data/llm-serving/llmservingsim/profiler/perf/RTXPRO6000/meta-llama/"
       "Llama-3.1-8B/bf16/tp1 --device RTX-PRO-6000 --model Llama-3.1-8B (host "
       "overheads stated)",
       {{"gemm_latency_us", 7.14154, true},
        {"gemm_compute_efficiency", 0.778319, true},
        {"gemm_half_tokens", 1.00363e-06, true},
        {"gemm_memory_efficiency", 0.901382, true},
        {"gemm_knee_exponent", 1.66383, true},
        {"elementwise_latency_us", 2.47361, true},
        {"elementwise_memory_efficiency", 2.34253, true},
        {"prefill_attention_latency_us", 0.830862, true},
        {"prefill_attention_compute_efficiency", 0.701606, true},
        {"prefill_attention_half_chunk", 382.125, true},
        {"prefill_attention_half_row", 320.561, true},
        {"prefill_attention_memory_efficiency", 0.7, false},
        {"decode_attention_latency_us", 11.6572, true},
        {"decode_attention_per_seq_us", 0.105275, true},
        {"decode_attention_memory_efficiency", 0.816735, true},
        {"decode_attention_half_seqs", 0.203744, true},
        {"decode_attention_compute_efficiency", 0.3, false},
        {"mixed_decode_per_seq_us", 0.486885, true},
        {"mixed_decode_memory_efficiency", 0.424024, true},
        {"sampler_latency_us", 22.5067, true},
        {"sampler_memory_efficiency", 0.72069, true},
        {"iteration_overhead_us", 1000, false},
        {"eager_extra_overhead_us", 1000, false},
        {"eager_launch_us_per_layer", 60, false}}},
  };
  return rows;
}
// clang-format on

const Row& row_of(std::string_view device) {
  for (const Row& r : table()) {
    if (r.device == device) return r;
  }
  throw std::logic_error("llm_efficiency_defaults: no row " + std::string(device));
}

LlmEfficiency build(const Row& row) {
  LlmEfficiency e;
  e.device = std::string(row.device);
  e.source = std::string(row.source);
  const bool carried = !row.carried_from.empty();
  for (const Value& v : carried ? row_of(row.carried_from).values : row.values) {
    const LlmEfficiencyField* field = nullptr;
    for (const LlmEfficiencyField& f : llm_efficiency_fields()) {
      if (f.name == v.name) field = &f;
    }
    if (field == nullptr) throw std::logic_error("llm_efficiency_defaults: " + std::string(v.name));
    e.*field->member = v.value;
    if (v.fitted && !carried) e.fitted.insert(std::string(v.name));
  }
  return e;
}

const std::vector<LlmEfficiency>& rows() {
  static const std::vector<LlmEfficiency> built = [] {
    std::vector<LlmEfficiency> out;
    for (const Row& r : table()) out.push_back(build(r));
    return out;
  }();
  return built;
}

}  // namespace

const LlmEfficiency& default_llm_efficiency(const DeviceProfile& device) {
  for (const LlmEfficiency& e : rows()) {
    if (e.device == device.name) return e;
  }
  static const LlmEfficiency generic = [] {
    LlmEfficiency e;
    e.source =
        "stated generic defaults (models/llm/roofline_time_model.h), not fitted: no operator "
        "profile of this device and no row in models/llm/llm_efficiency_defaults.cc";
    return e;
  }();
  return generic;
}

const std::vector<std::string>& llm_efficiency_device_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const LlmEfficiency& e : rows()) n.push_back(e.device);
    return n;
  }();
  return names;
}

}  // namespace gpumux
