// The shape of a decoder-only transformer as the LLM engine needs it: what sets its weights'
// bytes, its KV cache's bytes per token and the work of each operator of a layer.
//
// Shapes are data: the catalogue (models/llm/llm_models.csv, `gpumux llm-models`) holds the
// built-in ones with their sources. Every count is of the whole model (not per tensor-parallel
// rank).
#pragma once

#include <cstdint>
#include <string>

namespace gpumux {

struct LlmShape {
  std::string name;           // catalogue key, e.g. "meta-llama/Llama-3.1-8B"
  int layers = 0;             // decoder layers
  int hidden = 0;             // model width
  int q_heads = 0;            // query heads
  int kv_heads = 0;           // key/value heads (grouped-query attention when < q_heads)
  int head_dim = 0;           // per head; not always hidden / q_heads (Qwen3)
  int ffn = 0;                // MLP inner width
  bool gated_mlp = true;      // SwiGLU-style gate + up (two FFN-wide projections) or one
  int vocab = 0;              // LM head rows
  bool tied_embeddings = false;  // LM head shares the embedding matrix (counted once)
  int dtype_bytes = 2;        // bytes per weight and per KV element (bf16/fp16: 2)
  std::int64_t max_positions = 0;  // longest context the model supports; 0: not stated

  // Parameters of one decoder layer: Q, K, V, O projections, the MLP, two norms.
  double layer_parameters() const {
    const double h = hidden;
    const double q = static_cast<double>(q_heads) * head_dim;
    const double kv = static_cast<double>(kv_heads) * head_dim;
    const double mlp = (gated_mlp ? 3.0 : 2.0) * h * ffn;
    return h * q + 2.0 * h * kv + q * h + mlp + 2.0 * h;
  }
  // Parameters of the whole model: layers, embedding (and LM head unless tied), final norm.
  double parameters() const {
    const double embed = static_cast<double>(vocab) * hidden;
    return layers * layer_parameters() + embed * (tied_embeddings ? 1.0 : 2.0) + hidden;
  }
  double weight_bytes() const { return parameters() * dtype_bytes; }
  // One GPU's share under tensor parallelism over `tp` GPUs (Megatron-style, as vLLM splits
  // it): query heads, MLP width and vocabulary split tp ways; K/V heads split too, or
  // replicated when there are fewer than tp. Norms stay whole. Precondition: tp >= 1.
  LlmShape per_gpu(int tp) const {
    LlmShape s = *this;
    if (tp <= 1) return s;
    s.q_heads = q_heads / tp;
    s.kv_heads = kv_heads >= tp ? kv_heads / tp : 1;
    s.ffn = ffn / tp;
    s.vocab = (vocab + tp - 1) / tp;
    return s;
  }
  // K and V of one token in every layer.
  double kv_bytes_per_token() const {
    return 2.0 * layers * kv_heads * head_dim * static_cast<double>(dtype_bytes);
  }
};

}  // namespace gpumux
