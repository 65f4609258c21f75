// What an LLM endpoint measured (docs/llm-serving.md "Metrics"): latency distributions of the
// requests it served and counts of what happened to the others. Bounded memory: histograms,
// no per-request storage.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/services/latency_histogram.h"

namespace gpumux {

// The engine over time, per interval of the run's clock: time-weighted means of what ran, waited
// and filled the cache, and the tokens it produced (llm_timeseries.csv).
struct LlmIntervalSums {
  double busy_us = 0.0;        // time the engine was running iterations
  double running_us = 0.0;     // running sequences x time
  double waiting_us = 0.0;     // waiting requests x time (busy time only)
  double kv_block_us = 0.0;    // KV blocks in use x time
  std::int64_t output_tokens = 0;
};

struct LlmSeries {
  double interval_us = 0.0;   // 0: not recorded
  std::int64_t first = 0;     // index of series[0]: floor(t / interval)
  std::vector<LlmIntervalSums> sums;
};

struct LlmStats {
  LatencyHistogram ttft;  // arrival to first token, us
  LatencyHistogram tpot;  // per request: (last token - first token) / (output tokens - 1), us
  LatencyHistogram itl;   // every gap between two tokens of one request, us
  std::int64_t refused = 0;      // prompt (+ output) beyond max_model_len or the KV cache
  std::int64_t preemptions = 0;  // a running request evicted and recomputed later
  std::int64_t goodput = 0;      // served within both objectives (all served without any)
  std::int64_t prompt_tokens = 0;  // of served requests
  std::int64_t output_tokens = 0;  // of served requests
  std::int64_t iterations = 0;
  // Served requests' span: first arrival to last finish, us (measured requests only).
  double first_arrival_us = -1.0;
  double last_finish_us = -1.0;
  // Time-weighted sums over busy time, for the mean batch size and KV use.
  double busy_us = 0.0;
  double batch_seq_us = 0.0;     // running sequences x time
  double kv_used_block_us = 0.0; // KV blocks in use x time
  std::int64_t kv_blocks = 0;    // the cache's size
  std::int64_t peak_running = 0;

  void merge(const LlmStats& o) {
    ttft.merge(o.ttft);
    tpot.merge(o.tpot);
    itl.merge(o.itl);
    refused += o.refused;
    preemptions += o.preemptions;
    goodput += o.goodput;
    prompt_tokens += o.prompt_tokens;
    output_tokens += o.output_tokens;
    iterations += o.iterations;
    if (o.first_arrival_us >= 0 && (first_arrival_us < 0 || o.first_arrival_us < first_arrival_us))
      first_arrival_us = o.first_arrival_us;
    if (o.last_finish_us > last_finish_us) last_finish_us = o.last_finish_us;
    busy_us += o.busy_us;
    batch_seq_us += o.batch_seq_us;
    kv_used_block_us += o.kv_used_block_us;
    kv_blocks += o.kv_blocks;
    if (o.peak_running > peak_running) peak_running = o.peak_running;
  }
};

}  // namespace gpumux
