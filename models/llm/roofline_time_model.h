// The LLM engine's per-iteration performance model: a roofline per operator of a transformer
// layer, with efficiencies fitted on measured operator profiles (calibrate/llm_profiles/,
// docs/llm-performance-model.md).
//
// Every operator costs
//     t = latency + combine(FLOPs / (peak FLOP/s x compute efficiency),
//                           bytes / (bandwidth x memory efficiency))
// where combine is max() except for GEMMs (below). The efficiencies are where the measurements
// enter; FLOPs and bytes come from the model's shape divided over `tp` GPUs.
//
// Why these forms (each was checked against the profiles, docs/llm-performance-model.md):
// - GEMM compute efficiency saturates in the tokens n of the GEMM, eff(n) = e_max n/(n+n_half):
//   a GEMM of n rows fills its row tiles and SMs only for large n. The form makes the compute
//   time 2KN (n + n_half)/(P e_max): a straight line in n with a positive intercept, which is
//   what the profiles show above the memory-bound knee (the marginal cost per token is flat,
//   the extrapolation to n = 0 is not zero). Below the knee the time is the weights' read,
//   weight bytes / (B x e_mem), flat in n as measured. The knee itself is smooth in the
//   profiles (both limits overlap for a while), so GEMMs combine the two by a p-norm
//   (C^p + M^p)^(1/p) with p fitted (p -> infinity is the max).
// - Elementwise kernels (norms with the fused residual add, rotary embedding, SiLU-and-mul,
//   embedding gather) move bytes only: latency + bytes / (B x e).
// - Prefill attention (FlashAttention) computes 4 x pairs x q_heads x head_dim FLOPs; its
//   efficiency saturates both in the chunk per sequence c (query tiles are 64-128 rows: a
//   16-token chunk wastes most of each) and in the keys per query r = pairs / tokens (short rows
//   spend their time in the causal diagonal tiles and the prologue):
//   eff = e_max c/(c+c_half) r/(r+r_half).
// - Decode attention reads every cached K and V once: bytes = context tokens x 2 x kv_heads x
//   head_dim x dtype. Its bandwidth efficiency saturates in the number of decoding sequences s
//   (one sequence's split-KV kernel does not fill the GPU), e = e_max s/(s+s_half), and each
//   sequence adds a fixed cost (its block-table walk and tail tile): latency + s x per_seq.
//   In an iteration with prefill chunks too, the decode rows go through the prefill kernel with
//   their own (lower) bandwidth efficiency and per-sequence cost and no latency of their own.
// - The LM head is a GEMM of the sampled sequences over the vocabulary; the sampler reads the
//   float32 logits (sampled x vocab x 4 bytes) with its own latency and efficiency.
// - With tensor parallelism over `tp` GPUs, every layer all-reduces its attention output and its
//   MLP output (tokens x hidden x dtype bytes each) over the node's link: a ring all-reduce
//   (llm_interconnect.h). No shared measurement checks this term (docs/llm-serving.md "Larger
//   than one GPU").
// - Per iteration, a host overhead (scheduling, input preparation, sampling bookkeeping). With
//   CUDA graphs off (enforce_eager), the host launches every kernel of every layer itself: the
//   iteration is at least layers x the host's launch time of one layer, and the eager overhead
//   is added.
//
// iteration_us() is O(1) in the batch: it sees only IterationBatch's sums.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/device.h"
#include "sim/llm/iteration_time.h"
#include "models/llm/llm_interconnect.h"
#include "sim/llm/llm_shape.h"

namespace gpumux {

// The model's free parameters, per device. Units in the names; efficiencies are fractions of the
// device's peak (they may exceed 1 slightly when the profile's GPU ran above its rated clock or
// served data from its L2 cache).
struct LlmEfficiency {
  // GEMMs (QKV, O, gate+up, down, LM head).
  double gemm_latency_us = 4.0;
  double gemm_compute_efficiency = 0.75;  // e_max of the saturating curve
  double gemm_half_tokens = 64.0;         // n_half, tokens
  double gemm_memory_efficiency = 0.8;
  double gemm_knee_exponent = 3.0;  // p of the p-norm joining the compute and memory times
  // Elementwise kernels (RMSNorm with residual add, rotary embedding, activation, embedding).
  double elementwise_latency_us = 2.5;
  double elementwise_memory_efficiency = 0.6;
  // Prefill attention (one kernel per layer over every prefill chunk of the iteration).
  double prefill_attention_latency_us = 8.0;
  double prefill_attention_compute_efficiency = 0.6;
  double prefill_attention_half_chunk = 64.0;  // c_half, tokens of a chunk
  double prefill_attention_half_row = 256.0;   // r_half, keys per query
  double prefill_attention_memory_efficiency = 0.7;
  // Decode attention (paged KV; one kernel per layer over every decoding sequence).
  double decode_attention_latency_us = 8.0;
  double decode_attention_per_seq_us = 0.15;
  double decode_attention_memory_efficiency = 0.85;  // e_max
  double decode_attention_half_seqs = 1.0;           // s_half, sequences
  double decode_attention_compute_efficiency = 0.3;
  // Decode attention in an iteration that also has a prefill chunk: vLLM runs both through one
  // variable-length FlashAttention kernel, whose decode rows read their KV far less efficiently
  // than the decode kernel (LLMServingSim's mixed profiles: ~2x the time per cached token). Its
  // latency is the prefill part's; the saturation in sequences is decode_attention_half_seqs.
  double mixed_decode_per_seq_us = 0.8;
  double mixed_decode_memory_efficiency = 0.45;
  // Sampler (once per iteration over the sampled sequences' logits).
  double sampler_latency_us = 25.0;
  double sampler_memory_efficiency = 0.3;
  // Host side, per iteration.
  double iteration_overhead_us = 1000.0;    // with CUDA graphs
  double eager_extra_overhead_us = 1000.0;  // added without CUDA graphs
  double eager_launch_us_per_layer = 60.0;  // host time to launch one layer's kernels

  std::string device;            // the device the numbers were fitted on (or carried over from)
  std::string source;            // the command that produced them, or why they are stated
  std::set<std::string> fitted;  // names (llm_efficiency_fields) of the fitted parameters

  bool is_fitted(std::string_view name) const { return fitted.count(std::string(name)) > 0; }
};

// The parameters by name, for JSON, reports and fits.
struct LlmEfficiencyField {
  std::string_view name;  // also the JSON key
  std::string_view unit;  // "us", "fraction", "tokens", ...
  double LlmEfficiency::*member;
  double min, max;  // the range a calibration file may give
};
const std::vector<LlmEfficiencyField>& llm_efficiency_fields();

// JSON object {"format": "gpumux-llm-efficiency/1", "device", "source", "parameters": {NAME:
// {"value": number, "unit": string, "fitted": bool}}}; every field of llm_efficiency_fields
// must be present, nothing else.
std::string llm_efficiency_json(const LlmEfficiency& e);
// Reads a file written by llm_efficiency_json. Throws InputError naming the file and the JSON
// pointer of a missing, unknown, mistyped or out-of-range value.
LlmEfficiency read_llm_efficiency(const std::string& path);

// The operators one layer (and once per iteration: embedding, final norm, LM head, sampler) runs.
enum class LlmOp {
  kEmbedding,  // token-embedding gather (once per iteration)
  kNorm,       // RMSNorm fused with the residual add (twice per layer; the final norm once)
  kQkv,
  kRope,
  kAttentionOut,  // O projection
  kGateUp,        // gate + up (one fused GEMM of 2 x FFN for gated MLPs)
  kActivation,    // SiLU-and-mul (GELU for non-gated MLPs)
  kDown,
  kResidualAdd,  // a separate residual add (Vidur profiles it; vLLM fuses it into kNorm)
  kLmHead,       // tokens = sampled sequences
  kSampler,      // tokens = sampled sequences
};

// The device numbers the roofline needs.
struct LlmDevicePeaks {
  double tflops_16bit = 0.0;    // dense 16-bit tensor peak, TFLOP/s
  double bandwidth_gbps = 0.0;  // memory bandwidth, GB/s
};
// Throws InputError naming the device when a peak is missing (0).
LlmDevicePeaks llm_device_peaks(const DeviceProfile& device);

// One iteration's time split by where it goes, microseconds.
struct IterationBreakdown {
  double gemm_us = 0.0;               // all layers' projections
  double elementwise_us = 0.0;        // all layers' norms, rope, activation
  double prefill_attention_us = 0.0;  // all layers
  double decode_attention_us = 0.0;   // all layers
  double once_us = 0.0;               // embedding, final norm, LM head, sampler
  double allreduce_us = 0.0;          // all layers' tensor-parallel all-reduces
  double host_us = 0.0;               // overhead, plus the eager launch time the GPU did not cover
  double total_us = 0.0;
};

class RooflineTimeModel : public IterationTimeModel {
 public:
  // `tp`: tensor-parallel degree (the per-GPU shape is the whole model's divided by it), whose
  // all-reduces cross `link` (a link of bandwidth 0: not costed, as the operator profiles the
  // calibration fits measure each GPU alone). Preconditions: shape valid, tp >= 1, peaks > 0.
  RooflineTimeModel(const LlmShape& shape, LlmDevicePeaks peaks, LlmEfficiency efficiency,
                    int tp = 1, bool cuda_graphs = true, LlmInterconnect link = {});

  double iteration_us(const IterationBatch& batch) const override;
  Split split(const IterationBatch& batch) const override;
  IterationBreakdown breakdown(const IterationBatch& batch) const;
  // Precomputes the parts that depend only on the iteration's tokens (up to max_tokens) and on
  // its sampled sequences (up to max_seqs), so that an iteration costs a few table reads
  // instead of a dozen pow() calls; the times are the same to the bit. Call before sharing the
  // model (it is not synchronised).
  void tabulate(std::int64_t max_tokens, std::int64_t max_seqs);

  // One operator on one GPU for `tokens` tokens (sequences for kLmHead and kSampler), per layer.
  double op_us(LlmOp op, double tokens) const;
  // One layer's two all-reduces for `tokens` tokens; 0 without tensor parallelism.
  double layer_allreduce_us(double tokens) const;
  // One layer's prefill attention over `seqs` chunks of `tokens` new tokens in all with `pairs`
  // causal (query, key) pairs; one layer's decode attention of `seqs` sequences attending to
  // `context_tokens` tokens in all. 0 for an empty part.
  double prefill_attention_us(double seqs, double tokens, double pairs) const;
  // `mixed`: the iteration also has prefill chunks (the decode rows run in the prefill kernel).
  double decode_attention_us(double seqs, double context_tokens, bool mixed = false) const;

  const LlmEfficiency& efficiency() const { return eff_; }
  const LlmShape& shape() const { return shape_; }

 private:
  double gemm_us(double tokens, double k, double n) const;
  double elementwise_us(double bytes) const;

  // tabulate()'s tables, by token count and by sampled sequences; empty: not tabulated.
  struct TokenParts {
    double gemm_us, elementwise_us, once_us;  // once_us: embedding + final norm
    double allreduce_us;
  };
  struct SampledParts {
    double lm_head_us, sampler_us;
  };
  std::vector<TokenParts> by_tokens_;
  std::vector<SampledParts> by_sampled_;

  LlmShape shape_;
  LlmDevicePeaks peaks_;
  LlmEfficiency eff_;
  int tp_;
  bool cuda_graphs_;
  LlmInterconnect link_;
  // Per-GPU widths.
  double hidden_, q_width_, kv_width_, ffn_, vocab_;
  double flops_per_us_, bytes_per_us_;
};

}  // namespace gpumux
