// What one engine iteration (one forward pass over a batch) costs: the batch summarised as the
// few sums a performance model needs, and the model's interface.
//
// The summary is what keeps a simulated iteration's cost independent of the batch size: the
// scheduler keeps these sums up to date as requests join and leave instead of visiting each
// request (sim/llm/llm_scheduler.h).
#pragma once

#include <cstdint>

namespace gpumux {

// One iteration's batch. All counts are of the whole batch on one model replica.
struct IterationBatch {
  std::int64_t prefill_seqs = 0;    // sequences computing a prefill chunk this iteration
  std::int64_t prefill_tokens = 0;  // new prompt tokens of those chunks, summed
  // Causal (query, key) pairs of the prefill chunks: for a chunk of c new tokens over h tokens
  // already cached, c * h + c * (c + 1) / 2; summed.
  double prefill_attention_pairs = 0.0;
  std::int64_t decode_seqs = 0;  // sequences generating one token each
  // Tokens the decode sequences attend to (their cached tokens, the new one included), summed.
  double decode_context_tokens = 0.0;
  // Sequences that sample a token this iteration (decodes plus prefills that finish their
  // prompt): the LM head and the sampler run once for each.
  std::int64_t sampled_seqs = 0;

  std::int64_t tokens() const { return prefill_tokens + decode_seqs; }
};

// Predicts the wall-clock time of one iteration on one GPU (or one GPU's share a sharing model
// gives it, which scales it separately). Implementations must be pure (same batch, same time)
// and cheap: the engine calls this once per iteration.
class IterationTimeModel {
 public:
  virtual ~IterationTimeModel() = default;
  // Microseconds, > 0 for a batch with tokens() > 0.
  virtual double iteration_us(const IterationBatch& batch) const = 0;
  // iteration_us, and of it the microseconds the host spends (scheduling, input preparation,
  // launch overhead) while the GPU waits, from one evaluation: on a shared GPU another engine may
  // use them (sim/llm/llm_gpu_group.h). The host part is 0 unless the model separates it.
  struct Split {
    double total_us = 0.0;
    double host_us = 0.0;  // in [0, total_us]
  };
  virtual Split split(const IterationBatch& batch) const { return {iteration_us(batch), 0.0}; }
};

}  // namespace gpumux
