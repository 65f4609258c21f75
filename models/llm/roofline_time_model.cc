#include "models/llm/roofline_time_model.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"

namespace gpumux {

namespace {

constexpr std::string_view kFormat = "gpumux-llm-efficiency/1";

using E = LlmEfficiency;

}  // namespace

const std::vector<LlmEfficiencyField>& llm_efficiency_fields() {
  static const std::vector<LlmEfficiencyField> fields = {
      {"gemm_latency_us", "us", &E::gemm_latency_us, 0.0, 1e4},
      {"gemm_compute_efficiency", "fraction", &E::gemm_compute_efficiency, 1e-3, 2.0},
      {"gemm_half_tokens", "tokens", &E::gemm_half_tokens, 0.0, 1e6},
      {"gemm_memory_efficiency", "fraction", &E::gemm_memory_efficiency, 1e-3, 2.0},
      {"gemm_knee_exponent", "1", &E::gemm_knee_exponent, 1.0, 100.0},
      {"elementwise_latency_us", "us", &E::elementwise_latency_us, 0.0, 1e4},
      {"elementwise_memory_efficiency", "fraction", &E::elementwise_memory_efficiency, 1e-3, 4.0},
      {"prefill_attention_latency_us", "us", &E::prefill_attention_latency_us, 0.0, 1e4},
      {"prefill_attention_compute_efficiency", "fraction", &E::prefill_attention_compute_efficiency,
       1e-3, 2.0},
      {"prefill_attention_half_chunk", "tokens", &E::prefill_attention_half_chunk, 0.0, 1e6},
      {"prefill_attention_half_row", "keys per query", &E::prefill_attention_half_row, 0.0, 1e6},
      {"prefill_attention_memory_efficiency", "fraction", &E::prefill_attention_memory_efficiency,
       1e-3, 4.0},
      {"decode_attention_latency_us", "us", &E::decode_attention_latency_us, 0.0, 1e4},
      {"decode_attention_per_seq_us", "us per sequence", &E::decode_attention_per_seq_us, 0.0, 1e3},
      {"decode_attention_memory_efficiency", "fraction", &E::decode_attention_memory_efficiency,
       1e-3, 4.0},
      {"decode_attention_half_seqs", "sequences", &E::decode_attention_half_seqs, 0.0, 1e6},
      {"decode_attention_compute_efficiency", "fraction", &E::decode_attention_compute_efficiency,
       1e-3, 2.0},
      {"mixed_decode_per_seq_us", "us per sequence", &E::mixed_decode_per_seq_us, 0.0, 1e3},
      {"mixed_decode_memory_efficiency", "fraction", &E::mixed_decode_memory_efficiency, 1e-3, 4.0},
      {"sampler_latency_us", "us", &E::sampler_latency_us, 0.0, 1e5},
      {"sampler_memory_efficiency", "fraction", &E::sampler_memory_efficiency, 1e-4, 4.0},
      {"iteration_overhead_us", "us", &E::iteration_overhead_us, 0.0, 1e6},
      {"eager_extra_overhead_us", "us", &E::eager_extra_overhead_us, 0.0, 1e6},
      {"eager_launch_us_per_layer", "us", &E::eager_launch_us_per_layer, 0.0, 1e5},
  };
  return fields;
}

std::string llm_efficiency_json(const LlmEfficiency& e) {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["device"] = e.device;
  j["source"] = e.source;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const LlmEfficiencyField& f : llm_efficiency_fields()) {
    nlohmann::ordered_json p;
    p["value"] = e.*f.member;
    p["unit"] = f.unit;
    p["fitted"] = e.is_fitted(f.name);
    params[std::string(f.name)] = p;
  }
  j["parameters"] = params;
  return j.dump(2) + "\n";
}

LlmEfficiency read_llm_efficiency(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  JsonObject top(doc, path, "");
  const std::string format = top.required_string("format");
  if (format != kFormat) {
    throw InputError(top.where("format"), "format",
                     "expected \"" + std::string(kFormat) +
                         "\" (a file written by `gpumux "
                         "calibrate llm-profiles fit`), got \"" +
                         format + "\"");
  }
  LlmEfficiency e;
  e.device = top.required_string("device");
  e.source = top.optional_string("source", "");
  JsonObject params = top.object("parameters");
  for (const LlmEfficiencyField& f : llm_efficiency_fields()) {
    if (!params.has(f.name)) {
      throw InputError(params.where(f.name), std::string(f.name), "missing parameter");
    }
    JsonObject p = params.object(f.name);
    e.*f.member = p.required_number("value", f.min, f.max);
    p.optional_string("unit", "");
    if (p.optional_bool("fitted", false)) e.fitted.insert(std::string(f.name));
    p.finish();
  }
  params.finish();
  top.finish();
  return e;
}

LlmDevicePeaks llm_device_peaks(const DeviceProfile& device) {
  if (device.peak_tflops_16bit <= 0.0 || device.memory_bandwidth_gbps <= 0.0) {
    throw InputError(device.name, "peak_tflops_16bit",
                     "the LLM performance model needs the device's 16-bit tensor peak and memory "
                     "bandwidth (both > 0)");
  }
  return {device.peak_tflops_16bit, device.memory_bandwidth_gbps};
}

RooflineTimeModel::RooflineTimeModel(const LlmShape& shape, LlmDevicePeaks peaks,
                                     LlmEfficiency efficiency, int tp, bool cuda_graphs,
                                     LlmInterconnect link)
    : shape_(shape),
      peaks_(peaks),
      eff_(std::move(efficiency)),
      tp_(tp),
      cuda_graphs_(cuda_graphs),
      link_(std::move(link)) {
  if (tp < 1 || link_.bandwidth_gbps < 0.0 || peaks.tflops_16bit <= 0.0 || peaks.bandwidth_gbps <= 0.0 || shape.hidden <= 0 ||
      shape.q_heads <= 0 || shape.kv_heads <= 0 || shape.head_dim <= 0 || shape.ffn <= 0 ||
      shape.layers <= 0 || shape.vocab <= 0 || shape.dtype_bytes <= 0) {
    throw std::invalid_argument("RooflineTimeModel: invalid shape, peaks or tp");
  }
  hidden_ = shape.hidden;
  q_width_ = static_cast<double>(shape.q_heads) * shape.head_dim / tp;
  // K/V heads are replicated when there are fewer than tp of them.
  kv_width_ = static_cast<double>(std::max(1, shape.kv_heads / tp)) * shape.head_dim;
  ffn_ = static_cast<double>(shape.ffn) / tp;
  vocab_ = static_cast<double>(shape.vocab) / tp;
  flops_per_us_ = peaks.tflops_16bit * 1e6;
  bytes_per_us_ = peaks.bandwidth_gbps * 1e3;
}

double RooflineTimeModel::gemm_us(double tokens, double k, double n) const {
  if (tokens <= 0.0) return 0.0;
  const double d = shape_.dtype_bytes;
  const double flops = 2.0 * tokens * k * n;
  const double eff_c = eff_.gemm_compute_efficiency * tokens / (tokens + eff_.gemm_half_tokens);
  const double compute = flops / (flops_per_us_ * eff_c);
  const double bytes = d * (k * n + tokens * (k + n));
  const double memory = bytes / (bytes_per_us_ * eff_.gemm_memory_efficiency);
  const double p = eff_.gemm_knee_exponent;
  // The p-norm, scaled by the larger term to keep pow() in range.
  const double hi = std::max(compute, memory), lo = std::min(compute, memory);
  const double joined = hi * std::pow(1.0 + std::pow(lo / hi, p), 1.0 / p);
  return eff_.gemm_latency_us + joined;
}

double RooflineTimeModel::elementwise_us(double bytes) const {
  if (bytes <= 0.0) return 0.0;
  return eff_.elementwise_latency_us + bytes / (bytes_per_us_ * eff_.elementwise_memory_efficiency);
}

double RooflineTimeModel::op_us(LlmOp op, double n) const {
  if (n <= 0.0) return 0.0;
  const double d = shape_.dtype_bytes;
  const double h = hidden_;
  switch (op) {
    case LlmOp::kEmbedding:  // gather n rows, write them
      return elementwise_us(d * 2.0 * n * h);
    case LlmOp::kNorm:  // read x and residual, write both; the weight
      return elementwise_us(d * (4.0 * n * h + h));
    case LlmOp::kQkv:
      return gemm_us(n, h, q_width_ + 2.0 * kv_width_);
    case LlmOp::kRope:  // read and write q and k
      return elementwise_us(d * 2.0 * n * (q_width_ + kv_width_));
    case LlmOp::kAttentionOut:
      return gemm_us(n, q_width_, h);
    case LlmOp::kGateUp:
      return gemm_us(n, h, (shape_.gated_mlp ? 2.0 : 1.0) * ffn_);
    case LlmOp::kActivation:
      return elementwise_us(d * n * ffn_ * (shape_.gated_mlp ? 3.0 : 2.0));
    case LlmOp::kDown:
      return gemm_us(n, ffn_, h);
    case LlmOp::kResidualAdd:
      return elementwise_us(d * 3.0 * n * h);
    case LlmOp::kLmHead:
      return gemm_us(n, h, vocab_);
    case LlmOp::kSampler:  // float32 logits of the whole vocabulary per sampled sequence
      return eff_.sampler_latency_us +
             n * shape_.vocab * 4.0 / (bytes_per_us_ * eff_.sampler_memory_efficiency);
  }
  return 0.0;
}

double RooflineTimeModel::prefill_attention_us(double seqs, double tokens, double pairs) const {
  if (tokens <= 0.0) return 0.0;
  seqs = std::max(seqs, 1.0);
  pairs = std::max(pairs, tokens);
  const double chunk = tokens / seqs;
  const double row = pairs / tokens;
  const double eff = eff_.prefill_attention_compute_efficiency * chunk /
                     (chunk + eff_.prefill_attention_half_chunk) * row /
                     (row + eff_.prefill_attention_half_row);
  const double flops = 4.0 * pairs * q_width_;
  const double bytes = shape_.dtype_bytes * tokens * (2.0 * q_width_ + 2.0 * kv_width_);
  return eff_.prefill_attention_latency_us +
         std::max(flops / (flops_per_us_ * eff),
                  bytes / (bytes_per_us_ * eff_.prefill_attention_memory_efficiency));
}

double RooflineTimeModel::decode_attention_us(double seqs, double context_tokens,
                                              bool mixed) const {
  if (seqs <= 0.0) return 0.0;
  context_tokens = std::max(context_tokens, seqs);
  const double d = shape_.dtype_bytes;
  const double flops = 4.0 * context_tokens * q_width_;
  const double bytes = d * (context_tokens * 2.0 * kv_width_ + seqs * 2.0 * q_width_);
  const double saturation = seqs / (seqs + eff_.decode_attention_half_seqs);
  const double eff_m = saturation * (mixed ? eff_.mixed_decode_memory_efficiency
                                           : eff_.decode_attention_memory_efficiency);
  const double fixed =
      mixed ? eff_.mixed_decode_per_seq_us * seqs
            : eff_.decode_attention_latency_us + eff_.decode_attention_per_seq_us * seqs;
  return fixed + std::max(flops / (flops_per_us_ * eff_.decode_attention_compute_efficiency),
                          bytes / (bytes_per_us_ * eff_m));
}

double RooflineTimeModel::layer_allreduce_us(double tokens) const {
  if (tp_ <= 1 || tokens <= 0.0 || link_.bandwidth_gbps <= 0.0) return 0.0;
  return 2.0 * ring_allreduce_us(tokens * hidden_ * shape_.dtype_bytes, tp_, link_);
}

IterationBreakdown RooflineTimeModel::breakdown(const IterationBatch& b) const {
  IterationBreakdown r;
  const double n = static_cast<double>(b.tokens());
  if (n <= 0.0) return r;
  const double layers = shape_.layers;
  const std::int64_t tokens = b.tokens();
  double once_tokens_us;
  if (tokens < static_cast<std::int64_t>(by_tokens_.size())) {
    const TokenParts& t = by_tokens_[static_cast<std::size_t>(tokens)];
    r.gemm_us = t.gemm_us;
    r.elementwise_us = t.elementwise_us;
    once_tokens_us = t.once_us;
    r.allreduce_us = t.allreduce_us;
  } else {
    r.allreduce_us = layers * layer_allreduce_us(n);
    r.gemm_us = layers * (op_us(LlmOp::kQkv, n) + op_us(LlmOp::kAttentionOut, n) +
                          op_us(LlmOp::kGateUp, n) + op_us(LlmOp::kDown, n));
    r.elementwise_us = layers * (2.0 * op_us(LlmOp::kNorm, n) + op_us(LlmOp::kRope, n) +
                                 op_us(LlmOp::kActivation, n));
    once_tokens_us = op_us(LlmOp::kEmbedding, n) + op_us(LlmOp::kNorm, n);
  }
  r.prefill_attention_us = layers * prefill_attention_us(static_cast<double>(b.prefill_seqs),
                                                         static_cast<double>(b.prefill_tokens),
                                                         b.prefill_attention_pairs);
  r.decode_attention_us =
      layers * decode_attention_us(static_cast<double>(b.decode_seqs), b.decode_context_tokens,
                                   b.prefill_tokens > 0);
  const double sampled = static_cast<double>(b.sampled_seqs);
  if (b.sampled_seqs >= 0 && b.sampled_seqs < static_cast<std::int64_t>(by_sampled_.size())) {
    const SampledParts& s = by_sampled_[static_cast<std::size_t>(b.sampled_seqs)];
    r.once_us = once_tokens_us + s.lm_head_us + s.sampler_us;
  } else {
    r.once_us = once_tokens_us + op_us(LlmOp::kLmHead, sampled) + op_us(LlmOp::kSampler, sampled);
  }
  double gpu =
      r.gemm_us + r.elementwise_us + r.prefill_attention_us + r.decode_attention_us + r.once_us;
  if (tp_ > 1) gpu += r.allreduce_us;
  r.host_us = eff_.iteration_overhead_us;
  if (!cuda_graphs_) {
    r.host_us +=
        eff_.eager_extra_overhead_us + std::max(0.0, layers * eff_.eager_launch_us_per_layer - gpu);
  }
  r.total_us = gpu + r.host_us;
  return r;
}

void RooflineTimeModel::tabulate(std::int64_t max_tokens, std::int64_t max_seqs) {
  // The same expressions as breakdown()'s, evaluated once per count.
  std::vector<TokenParts> tokens(static_cast<std::size_t>(std::max<std::int64_t>(max_tokens, 0) + 1));
  const double layers = shape_.layers;
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    const double n = static_cast<double>(i);
    tokens[i].gemm_us = layers * (op_us(LlmOp::kQkv, n) + op_us(LlmOp::kAttentionOut, n) +
                                  op_us(LlmOp::kGateUp, n) + op_us(LlmOp::kDown, n));
    tokens[i].elementwise_us = layers * (2.0 * op_us(LlmOp::kNorm, n) + op_us(LlmOp::kRope, n) +
                                         op_us(LlmOp::kActivation, n));
    tokens[i].once_us = op_us(LlmOp::kEmbedding, n) + op_us(LlmOp::kNorm, n);
    tokens[i].allreduce_us = layers * layer_allreduce_us(n);
  }
  std::vector<SampledParts> sampled(static_cast<std::size_t>(std::max<std::int64_t>(max_seqs, 0) + 1));
  for (std::size_t i = 0; i < sampled.size(); ++i) {
    const double s = static_cast<double>(i);
    sampled[i].lm_head_us = op_us(LlmOp::kLmHead, s);
    sampled[i].sampler_us = op_us(LlmOp::kSampler, s);
  }
  by_tokens_ = std::move(tokens);
  by_sampled_ = std::move(sampled);
}

double RooflineTimeModel::iteration_us(const IterationBatch& batch) const {
  return breakdown(batch).total_us;
}

IterationTimeModel::Split RooflineTimeModel::split(const IterationBatch& batch) const {
  const IterationBreakdown b = breakdown(batch);
  return {b.total_us, b.host_us};
}

}  // namespace gpumux
