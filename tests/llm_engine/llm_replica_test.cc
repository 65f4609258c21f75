// The LLM engine's iteration schedule, computed by hand (docs/llm-serving.md "The engine"):
// chunked prefill within the token budget, continuous batching, the paged KV cache, preemption
// by recomputation, refusals and the closed loop's bound on requests in flight.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sim/llm/llm_replica.h"
#include "sim/llm/llm_stats.h"

namespace gpumux {
namespace {

// base_us + per_token_us x tokens; remembers every batch it was asked about.
class LinearTime final : public IterationTimeModel {
 public:
  LinearTime(double base_us, double per_token_us) : base_(base_us), per_token_(per_token_us) {}
  double iteration_us(const IterationBatch& b) const override {
    seen.push_back(b);
    return base_ + per_token_ * static_cast<double>(b.tokens());
  }
  mutable std::vector<IterationBatch> seen;

 private:
  double base_, per_token_;
};

struct LinearEndpoint {
  std::shared_ptr<LinearTime> time;
  std::shared_ptr<LlmEndpointSpec> llm = std::make_shared<LlmEndpointSpec>();
  ServiceSpec spec;

  LinearEndpoint(double base_us, double per_token_us)
      : time(std::make_shared<LinearTime>(base_us, per_token_us)) {
    llm->time_model = time;
    llm->engine.max_model_len = 100000;
    llm->engine.kv_blocks = 1000;
    spec.llm = llm;
  }
  void trace(std::vector<LlmRequestRow> rows) {
    llm->load.kind = LlmLoadKind::kTrace;
    llm->load.rows = std::make_shared<const std::vector<LlmRequestRow>>(std::move(rows));
  }
};

TEST(LlmReplica, HandComputedScheduleOfTwoRequests) {
  // Budget 8 tokens: A's 10-token prompt takes two chunks (8, then 2 beside B's 4); both sample
  // their first token at the end of iteration 1, decode together in iteration 2 (B ends), and A
  // alone in iteration 3. Times: 100 us + 10 us per token.
  LinearEndpoint e(100.0, 10.0);
  e.llm->engine.max_num_batched_tokens = 8;
  e.trace({{0.0, 10, 3}, {0.0, 4, 2}});
  LlmReplica r(e.spec, 0.0, 1);
  r.set_rate(0.0, 1.0);
  r.end(10000.0);

  ASSERT_EQ(e.time->seen.size(), 4u);
  const auto& s = e.time->seen;
  EXPECT_EQ(s[0].prefill_tokens, 8);
  EXPECT_EQ(s[0].prefill_seqs, 1);
  EXPECT_DOUBLE_EQ(s[0].prefill_attention_pairs, 8.0 * 9.0 / 2.0);
  EXPECT_EQ(s[0].sampled_seqs, 0);
  EXPECT_EQ(s[1].prefill_tokens, 6);
  EXPECT_EQ(s[1].prefill_seqs, 2);
  EXPECT_DOUBLE_EQ(s[1].prefill_attention_pairs, (2.0 * 8 + 3) + 10.0);  // A: 2 over 8; B: 4 over 0
  EXPECT_EQ(s[1].sampled_seqs, 2);
  EXPECT_EQ(s[2].decode_seqs, 2);
  EXPECT_DOUBLE_EQ(s[2].decode_context_tokens, (10 + 1) + (4 + 1));
  EXPECT_EQ(s[3].decode_seqs, 1);
  EXPECT_DOUBLE_EQ(s[3].decode_context_tokens, 10 + 2);

  // Iterations end at 180, 340, 460, 570 us.
  const LlmStats& st = *r.llm_stats();
  EXPECT_EQ(r.counts().served, 2);
  EXPECT_EQ(st.iterations, 4);
  EXPECT_DOUBLE_EQ(st.ttft.mean_us(), 340.0);
  EXPECT_DOUBLE_EQ(r.latencies().mean_us(), (460.0 + 570.0) / 2.0);
  EXPECT_DOUBLE_EQ(st.tpot.mean_us(), ((460.0 - 340.0) / 1.0 + (570.0 - 340.0) / 2.0) / 2.0);
  EXPECT_DOUBLE_EQ(st.itl.count(), 3.0);
  EXPECT_DOUBLE_EQ(st.itl.mean_us(), (120.0 * 2 + 110.0) / 3.0);
  EXPECT_EQ(st.output_tokens, 5);
  EXPECT_EQ(st.prompt_tokens, 14);
  EXPECT_DOUBLE_EQ(st.last_finish_us, 570.0);
  EXPECT_EQ(r.kv_blocks_used(), 0);
}

TEST(LlmReplica, KvExhaustionPreemptsTheNewestAndRecomputesIt) {
  // 4 usable blocks of 4 tokens (a fifth is vLLM's null block). A and B (prompt 4, output 8) prefill together in iteration 0; each
  // takes a second block at step 1; at step 5 both need a third and none is free: B, the
  // newest, is preempted. A ends after step 7 and frees 3 blocks; B prefills its 4 prompt and 5
  // generated tokens again in step 8 and ends after step 10. 100 us per iteration.
  LinearEndpoint e(100.0, 0.0);
  e.llm->engine.block_size = 4;
  e.llm->engine.kv_blocks = 5;
  e.trace({{0.0, 4, 8}, {0.0, 4, 8}});
  LlmReplica r(e.spec, 0.0, 1);
  r.set_rate(0.0, 1.0);
  for (double t = 50.0; t < 2000.0; t += 100.0) {
    r.set_rate(t, 1.0);  // catching up in steps gives the same schedule
    EXPECT_GE(r.kv_blocks_used(), 0);
    EXPECT_LE(r.kv_blocks_used(), 4);
  }
  r.end(2000.0);
  const LlmStats& st = *r.llm_stats();
  EXPECT_EQ(st.preemptions, 1);
  EXPECT_EQ(r.counts().served, 2);
  EXPECT_EQ(st.iterations, 11);
  const auto& s = e.time->seen;
  ASSERT_EQ(s.size(), 11u);
  EXPECT_EQ(s[5].decode_seqs, 1);  // B preempted, and no waiting request admitted after it
  EXPECT_EQ(s[5].prefill_seqs, 0);
  EXPECT_EQ(s[8].prefill_tokens, 9);  // B recomputes prompt + generated
  EXPECT_EQ(s[8].decode_seqs, 0);
  EXPECT_DOUBLE_EQ(r.latencies().mean_us(), (800.0 + 1100.0) / 2.0);
  EXPECT_DOUBLE_EQ(st.ttft.mean_us(), 100.0);
  EXPECT_DOUBLE_EQ(st.tpot.count(), 2.0);
  EXPECT_DOUBLE_EQ(st.tpot.mean_us(), ((800.0 - 100.0) / 7.0 + (1100.0 - 100.0) / 7.0) / 2.0);
  EXPECT_EQ(r.kv_blocks_used(), 0);
}

TEST(LlmReplica, RefusesRequestsLongerThanTheContextOrTheCache) {
  LinearEndpoint e(100.0, 1.0);
  e.llm->engine.max_model_len = 100;
  e.llm->engine.block_size = 16;
  e.llm->engine.kv_blocks = 5;  // 4 usable blocks: 64 tokens
  e.trace({{0.0, 90, 20}, {0.0, 60, 10}, {0.0, 30, 10}});
  LlmReplica r(e.spec, 0.0, 1);
  r.set_rate(0.0, 1.0);
  r.end(1e6);
  EXPECT_EQ(r.llm_stats()->refused, 2);
  EXPECT_EQ(r.counts().dropped, 2);
  EXPECT_EQ(r.counts().served, 1);
  EXPECT_EQ(r.counts().arrived, 3);
}

TEST(LlmReplica, ClosedLoopNeverHasMoreThanItsClientsInFlight) {
  LinearEndpoint e(200.0, 2.0);
  e.llm->engine.max_num_seqs = 64;
  e.llm->load.kind = LlmLoadKind::kClosed;
  e.llm->load.clients = 3;
  e.llm->load.warmup_requests = 5;
  e.llm->load.measured_requests = 50;
  e.llm->load.tokens.pairs = std::make_shared<const std::vector<std::pair<std::int32_t, std::int32_t>>>(
      std::vector<std::pair<std::int32_t, std::int32_t>>{{100, 20}, {700, 5}, {30, 90}, {2500, 1}});
  LlmReplica r(e.spec, 0.0, 42);
  r.set_rate(0.0, 1.0);
  r.end(1e9);
  EXPECT_EQ(r.peak_in_flight(), 3);
  EXPECT_EQ(r.counts().arrived, 50);  // the warm-up requests are not measured
  EXPECT_EQ(r.counts().served, 50);
  EXPECT_EQ(r.counts().unfinished, 0);
  for (const IterationBatch& b : e.time->seen) EXPECT_LE(b.decode_seqs + b.prefill_seqs, 3);
}

TEST(LlmReplica, SlowerRateStretchesEveryIteration) {
  LinearEndpoint full(100.0, 10.0), half(100.0, 10.0);
  full.trace({{0.0, 10, 3}, {0.0, 4, 2}});
  half.trace({{0.0, 10, 3}, {0.0, 4, 2}});
  LlmReplica a(full.spec, 0.0, 1), b(half.spec, 0.0, 1);
  a.set_rate(0.0, 1.0);
  b.set_rate(0.0, 0.5);
  a.end(1e6);
  b.end(1e6);
  EXPECT_DOUBLE_EQ(b.latencies().mean_us(), 2.0 * a.latencies().mean_us());
}

TEST(LlmReplica, KilledReplicaDropsWhatItHolds) {
  LinearEndpoint e(1000.0, 0.0);
  e.trace({{0.0, 10, 50}, {0.001, 10, 50}, {10.0, 10, 2}});
  LlmReplica r(e.spec, 0.0, 1);
  r.set_rate(0.0, 1.0);
  r.kill(5000.0);
  EXPECT_EQ(r.running(), 0);
  EXPECT_EQ(r.kv_blocks_used(), 0);
  r.set_rate(9e6, 1.0);  // restarted before the third request
  r.end(1e8);
  EXPECT_EQ(r.counts().dropped, 2);
  EXPECT_EQ(r.counts().served, 1);
}

}  // namespace
}  // namespace gpumux
