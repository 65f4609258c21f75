// One LLM endpoint simulated iteration by iteration, as vLLM's (V1) scheduler runs it
// (docs/llm-serving.md "The engine"):
//
// - Each iteration is one forward pass over one batch: first every running sequence (decodes
//   take one token each, a sequence still in its prompt takes its next chunk), then waiting
//   requests in arrival order while the token budget (max_num_batched_tokens), max_num_seqs
//   and free KV blocks allow. Without chunked prefill a prompt that does not fit the remaining
//   budget waits for the next iteration.
// - The KV cache is paged: a sequence holds ceil(tokens / block_size) blocks of its prompt
//   and generated tokens, one more block each time it crosses a block boundary. When a running
//   sequence needs a block and none is free, the newest running sequence is preempted (vLLM's
//   default, recomputation): its blocks are freed, it goes back to the head of the queue, and
//   it later prefills its prompt and the tokens generated so far again. A waiting request is
//   admitted only when its whole sequence fits the free blocks (vLLM 0.19's
//   scheduler_reserve_full_isl), and one block is kept out of use (vLLM's null block).
// - A request whose prompt + output exceeds max_model_len, or needs more blocks than the
//   whole cache, is refused when it arrives (vLLM rejects such a request).
// - An iteration takes the performance model's time (sim/llm/iteration_time.h) divided by the
//   replica's rate (the share of its GPU a sharing model gives it).
//
// - On a GPU shared with other LLM endpoints (time-slicing or MPS), the endpoints are
//   simulated together by an LlmGpuGroup (sim/llm/llm_gpu_group.h), which interleaves their
//   iterations' host and GPU parts on one clock; the replica's rate then only says whether it
//   is up. On a MIG instance (LlmSharing::mig_profile) its time model is already the
//   instance's, and the rate is not applied on top.
//
// The cost of a simulated iteration does not grow with the batch: decoding sequences are kept
// as sums (count, context tokens, how many cross a block boundary at each step) and a heap of
// the steps at which they finish; only prefills, finishes and preemptions visit a sequence.
#pragma once

#include <cstdint>
#include <deque>
#include <queue>
#include <vector>

#include "sim/core/service.h"
#include "sim/llm/llm_endpoint.h"
#include "sim/llm/llm_request_source.h"
#include "sim/llm/llm_stats.h"
#include "sim/services/service_replica.h"

namespace gpumux {

class LlmGpuGroup;

class LlmReplica final : public ServiceReplica {
 public:
  // `spec` (whose `llm` is set) must outlive the replica; arrivals start at origin_us.
  LlmReplica(const ServiceSpec& spec, double origin_us, std::uint64_t seed);
  ~LlmReplica() override;
  LlmReplica(const LlmReplica&) = delete;
  LlmReplica& operator=(const LlmReplica&) = delete;

  // From t_us on, shares its GPU with the other members of `group` (which must outlive its
  // membership); `thread_fraction`: its MPS active-thread share, (0, 1], when its spec gives
  // none. Joining the group it is in already only updates the share.
  void join_group(double t_us, LlmGpuGroup& group, double thread_fraction);
  // From t_us on, simulates itself again at its rate. No-op outside a group.
  void leave_group(double t_us);
  LlmGpuGroup* group() const { return group_; }
  void set_rate(double t_us, double rate) override;
  void kill(double t_us) override;
  void end(double t_us) override;
  const LlmStats* llm_stats() const override { return &stats_; }
  // Records the engine per interval of `interval_us` of the run's clock (llm_series()). Call
  // before the first set_rate.
  void record_series(double interval_us) override { series_.interval_us = interval_us; }
  const LlmSeries* llm_series() const override { return series_.interval_us > 0 ? &series_ : nullptr; }

  // For tests and the time series: sequences running now, waiting now, KV blocks in use.
  std::int64_t running() const { return decode_count_ + static_cast<std::int64_t>(prefilling_.size()); }
  std::int64_t waiting() const { return static_cast<std::int64_t>(waiting_.size()); }
  std::int64_t kv_blocks_used() const { return config_.kv_blocks - 1 - free_blocks_; }
  // The most requests in flight (arrived, not yet ended) at any one time.
  std::int64_t peak_in_flight() const { return peak_in_flight_; }

 private:
  static constexpr int kNone = -1;
  struct Seq {
    double arrival_us = 0.0;
    double first_token_us = -1.0;
    double last_token_us = -1.0;  // when preempted while decoding
    std::int64_t prompt = 0;
    std::int64_t output = 0;
    std::int64_t generated = 0;  // tokens sampled so far
    std::int64_t computed = 0;   // tokens in the KV cache (while prefilling)
    std::int64_t blocks = 0;     // KV blocks held (while prefilling)
    std::int64_t join_step = 0;  // decoding: the iteration from which it decodes
    std::int64_t joined_generated = 0;
    std::int64_t chunk = 0;      // prefill tokens in the iteration in flight
    std::uint32_t epoch = 0;     // bumped when it stops decoding: stale heap entries
    int prev = kNone, next = kNone;  // the running list, in scheduling order
    bool decoding = false;
    bool measured = true;
  };
  struct Finish {
    std::int64_t step;
    int seq;
    std::uint32_t epoch;
    bool operator>(const Finish& o) const {
      return step != o.step ? step > o.step : seq > o.seq;
    }
  };

  friend class LlmGpuGroup;
  enum class Phase : std::uint8_t { kIdle, kHost, kGpu };
  struct GroupEvent {
    bool released_gpu = false;  // its GPU part ended
    bool wants_gpu = false;     // a GPU part is ready
  };

  void advance_to(double t_us);
  void solo_advance_to(double t_us);
  // In a group: when the replica's next own event is (its host part's end, its GPU part's end
  // at speed_, its next arrival, or now when a plan is due); infinity when none.
  double group_next_event() const;
  // In a group: its GPU part progresses at speed_ until t_us.
  void group_progress(double t_us);
  // In a group: handles the event due at t_us.
  GroupEvent group_handle(double t_us);
  // Plans an iteration at now_ and starts its host part (or its GPU part when it has none).
  bool group_start_iteration();
  // Splits the planned iteration's GPU part (gpu_us at full resources) as the group's mode sees it.
  void split_gpu_part(double total_us, double gpu_us);
  void admit_arrivals();
  void on_arrival(const struct LlmArrival& a);
  // Plans the next iteration at now_; false when there is nothing to run.
  bool plan_iteration();
  void complete_iteration();
  int preempt_newest();  // the sequence preempted, or kNone
  void finish(int s, double t_us);
  void drop_all(double t_us, bool unfinished);
  int new_seq();
  void link_tail(int s);
  void unlink(int s);
  std::int64_t blocks_for(std::int64_t tokens) const {
    return (tokens + config_.block_size - 1) / config_.block_size;
  }
  // A decoding sequence at step `step`: tokens generated, KV tokens held.
  std::int64_t generated_at(const Seq& q, std::int64_t step) const {
    return q.joined_generated + (step - q.join_step);
  }
  int residue(const Seq& q) const;
  void start_decoding(int s);
  void stop_decoding(int s);
  void note_ended(const Seq& q, double t_us);
  // Adds the iteration [begin, end) to the intervals it spans.
  void record_interval(double begin_us, double end_us, std::int64_t tokens);
  LlmIntervalSums& bucket(std::int64_t index);

  const ServiceSpec& spec_;
  const LlmEndpointSpec& llm_;
  const LlmEngineConfig& config_;
  LlmRequestSource source_;
  LlmStats stats_;
  LlmSeries series_;
  double now_;
  double rate_ = 0.0;
  bool ended_ = false;
  bool down_ = false;

  std::vector<Seq> seqs_;
  std::vector<int> free_seqs_;
  std::deque<int> waiting_;
  std::vector<int> prefilling_;  // running, still in their prompt, in scheduling order
  int head_ = kNone, tail_ = kNone;  // the running list
  std::int64_t free_blocks_;

  // Decoding sequences as sums.
  std::int64_t decode_count_ = 0;
  std::int64_t measured_decoding_ = 0;
  double decode_context_ = 0.0;  // sum of prompt + generated over decoding sequences
  std::vector<std::int64_t> residue_count_;  // by (prompt + generated - 1 - step) mod block
  std::priority_queue<Finish, std::vector<Finish>, std::greater<>> finishes_;
  std::int64_t step_ = 0;  // the next iteration's index
  // Whether the planned iteration already gave its decodes their new blocks, and to which
  // residue class (a decode preempted after that frees that block too).
  bool decode_blocks_taken_ = false;
  int decode_residue_ = 0;

  // The iteration in flight.
  bool in_iteration_ = false;
  double work_left_us_ = 0.0;  // exclusive-GPU microseconds still to do
  double iteration_start_us_ = 0.0;
  double last_iteration_end_us_ = -1.0;
  std::int64_t iteration_decodes_ = 0;
  std::int64_t iteration_measured_decodes_ = 0;
  std::vector<int> iteration_prefills_;
  IterationBatch batch_;

  std::int64_t in_flight_ = 0;
  std::int64_t peak_in_flight_ = 0;

  // In a group (llm_gpu_group.h).
  LlmGpuGroup* group_ = nullptr;
  Phase phase_ = Phase::kIdle;
  double thread_fraction_ = 1.0;  // MPS active-thread share, (0, 1]
  double host_end_us_ = 0.0;
  double gpu_left_ = 0.0;      // share of the GPU part still to do, [0, 1]
  double gpu_full_us_ = 0.0;   // the GPU part alone on the whole GPU
  double gpu_alone_us_ = 0.0;  // the GPU part alone in the group's mode (its SM cap included)
  double sm_demand_ = 0.0;     // x: SMs it holds while running alone, share of the device
  double bw_demand_ = 0.0;     // y: bandwidth it uses while running alone, share of the device
  double speed_ = 0.0;         // of its GPU part, relative to alone; set by the group
  bool plan_failed_ = false;   // nothing could be planned since the last arrival or finish
};

}  // namespace gpumux
