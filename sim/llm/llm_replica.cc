#include "sim/llm/llm_replica.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/llm/llm_gpu_group.h"

namespace gpumux {

LlmReplica::LlmReplica(const ServiceSpec& spec, double origin_us, std::uint64_t seed)
    : spec_(spec),
      llm_(*spec.llm),
      config_(spec.llm->engine),
      source_(spec.llm->load, origin_us, seed),
      now_(origin_us),
      // vLLM's block pool keeps one null block out of use.
      free_blocks_(spec.llm->engine.kv_blocks - 1),
      residue_count_(static_cast<std::size_t>(spec.llm->engine.block_size), 0) {
  stats_.kv_blocks = config_.kv_blocks;
  waiting_.clear();
  prefilling_.reserve(static_cast<std::size_t>(config_.max_num_seqs));
  iteration_prefills_.reserve(static_cast<std::size_t>(config_.max_num_seqs));
}

LlmReplica::~LlmReplica() {
  if (group_) group_->leave(*this);
}

int LlmReplica::new_seq() {
  if (!free_seqs_.empty()) {
    const int s = free_seqs_.back();
    free_seqs_.pop_back();
    const std::uint32_t epoch = seqs_[static_cast<std::size_t>(s)].epoch + 1;
    seqs_[static_cast<std::size_t>(s)] = Seq{};
    seqs_[static_cast<std::size_t>(s)].epoch = epoch;
    return s;
  }
  seqs_.emplace_back();
  return static_cast<int>(seqs_.size() - 1);
}

void LlmReplica::link_tail(int s) {
  Seq& q = seqs_[static_cast<std::size_t>(s)];
  q.prev = tail_;
  q.next = kNone;
  if (tail_ != kNone) seqs_[static_cast<std::size_t>(tail_)].next = s;
  tail_ = s;
  if (head_ == kNone) head_ = s;
}

void LlmReplica::unlink(int s) {
  Seq& q = seqs_[static_cast<std::size_t>(s)];
  if (q.prev != kNone) seqs_[static_cast<std::size_t>(q.prev)].next = q.next;
  else head_ = q.next;
  if (q.next != kNone) seqs_[static_cast<std::size_t>(q.next)].prev = q.prev;
  else tail_ = q.prev;
  q.prev = q.next = kNone;
}

int LlmReplica::residue(const Seq& q) const {
  // A decoding sequence writes KV slot prompt + generated - 1 at the step; it needs a new block
  // when that slot starts one: (prompt + joined_generated - 1 - join_step + step) % block == 0.
  const std::int64_t b = config_.block_size;
  const std::int64_t r = (q.prompt + q.joined_generated - 1 - q.join_step) % b;
  return static_cast<int>(r < 0 ? r + b : r);
}

void LlmReplica::start_decoding(int s) {
  Seq& q = seqs_[static_cast<std::size_t>(s)];
  q.decoding = true;
  q.join_step = step_;
  q.joined_generated = q.generated;
  ++decode_count_;
  if (q.measured) ++measured_decoding_;
  decode_context_ += static_cast<double>(q.prompt + q.generated);
  ++residue_count_[static_cast<std::size_t>(residue(q))];
  // It decodes in steps join_step .. join_step + (output - generated) - 1 and ends after the last.
  finishes_.push(Finish{q.join_step + (q.output - q.generated) - 1, s, q.epoch});
}

void LlmReplica::stop_decoding(int s) {
  Seq& q = seqs_[static_cast<std::size_t>(s)];
  q.generated = generated_at(q, step_);
  q.blocks = blocks_for(q.prompt + q.generated - 1);
  --decode_count_;
  if (q.measured) --measured_decoding_;
  decode_context_ -= static_cast<double>(q.prompt + q.generated);
  --residue_count_[static_cast<std::size_t>(residue(q))];
  q.decoding = false;
  ++q.epoch;  // its heap entry is stale now
}

void LlmReplica::set_rate(double t_us, double rate) {
  advance_to(t_us);
  if (ended_) return;
  if (down_ || rate_ == 0.0) {
    if (down_) source_.restart(t_us);
    down_ = false;
  }
  // A MIG instance's time model is the instance's already: its rate only says it is up.
  rate_ = !llm_.sharing.mig_profile.empty() && rate > 0.0 ? 1.0 : rate;
  advance_to(t_us);
}

void LlmReplica::kill(double t_us) {
  advance_to(t_us);
  leave_group(t_us);
  drop_all(t_us, false);
  source_.stop(t_us);
  down_ = true;
  rate_ = 0.0;
}

void LlmReplica::end(double t_us) {
  if (ended_) return;
  advance_to(t_us);
  leave_group(t_us);
  drop_all(t_us, true);
  source_.stop(t_us);
  ended_ = true;
  rate_ = 0.0;
}

void LlmReplica::drop_all(double /*t_us*/, bool unfinished) {
  const auto count = [&](const Seq& q) {
    if (!q.measured) return;
    if (unfinished) counts_.unfinished += 1;
    else counts_.dropped += 1;
  };
  for (int s = head_; s != kNone; s = seqs_[static_cast<std::size_t>(s)].next) {
    count(seqs_[static_cast<std::size_t>(s)]);
  }
  for (int s : waiting_) count(seqs_[static_cast<std::size_t>(s)]);
  // Start afresh: nothing held.
  seqs_.clear();
  free_seqs_.clear();
  waiting_.clear();
  prefilling_.clear();
  iteration_prefills_.clear();
  head_ = tail_ = kNone;
  free_blocks_ = config_.kv_blocks - 1;
  decode_count_ = measured_decoding_ = 0;
  decode_context_ = 0.0;
  std::fill(residue_count_.begin(), residue_count_.end(), 0);
  finishes_ = {};
  in_iteration_ = false;
  work_left_us_ = 0.0;
  in_flight_ = 0;
}

void LlmReplica::note_ended(const Seq& q, double t_us) {
  --in_flight_;
  (void)q;
  source_.request_ended(t_us);
}

void LlmReplica::on_arrival(const LlmArrival& a) {
  plan_failed_ = false;
  if (a.measured) {
    counts_.arrived += 1;
    if (stats_.first_arrival_us < 0) stats_.first_arrival_us = a.at_us;
  }
  ++in_flight_;
  peak_in_flight_ = std::max(peak_in_flight_, in_flight_);
  const std::int64_t total = static_cast<std::int64_t>(a.prompt_tokens) + a.output_tokens;
  // vLLM rejects a request longer than the model's context; one that could never hold its
  // tokens in the whole cache would be preempted forever, so it is refused too.
  if (total > config_.max_model_len || blocks_for(total - 1) > config_.kv_blocks - 1) {
    if (a.measured) {
      ++stats_.refused;
      counts_.dropped += 1;
    }
    --in_flight_;
    source_.request_ended(a.at_us);
    return;
  }
  const int s = new_seq();
  Seq& q = seqs_[static_cast<std::size_t>(s)];
  q.arrival_us = a.at_us;
  q.prompt = a.prompt_tokens;
  q.output = a.output_tokens;
  q.measured = a.measured;
  waiting_.push_back(s);
}

void LlmReplica::admit_arrivals() {
  while (source_.next_at() <= now_) on_arrival(source_.take());
}

int LlmReplica::preempt_newest() {
  // Evicts the newest running sequence (the tail of the running list); kNone when none runs.
  const int victim = tail_;
  if (victim == kNone) return kNone;
  Seq& q = seqs_[static_cast<std::size_t>(victim)];
  if (q.decoding) {
    const bool took_block = decode_blocks_taken_ && residue(q) == decode_residue_;
    stop_decoding(victim);
    if (took_block) q.blocks += 1;  // the block this step gave it is freed with the rest
    q.last_token_us = last_iteration_end_us_;
  } else {
    prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), victim));
  }
  free_blocks_ += q.blocks;
  q.blocks = 0;
  q.computed = 0;  // recomputation: its prompt and generated tokens are prefilled again
  unlink(victim);
  waiting_.push_front(victim);
  ++stats_.preemptions;
  return victim;
}

bool LlmReplica::plan_iteration() {
  std::int64_t budget = config_.max_num_batched_tokens;
  batch_ = IterationBatch{};
  iteration_prefills_.clear();

  // Decodes first (they are the oldest running sequences): the ones crossing a block boundary
  // need a block each; without enough, the newest running sequences make room.
  const std::int64_t b = config_.block_size;
  std::int64_t r = (-step_) % b;
  if (r < 0) r += b;
  const std::int64_t preempted_before = stats_.preemptions;
  while (decode_count_ > 0 && residue_count_[static_cast<std::size_t>(r)] > free_blocks_) {
    preempt_newest();
  }
  free_blocks_ -= residue_count_[static_cast<std::size_t>(r)];
  decode_blocks_taken_ = true;
  decode_residue_ = static_cast<int>(r);
  budget -= decode_count_;

  // Running sequences still in their prompt, in scheduling order.
  for (std::size_t i = 0; i < prefilling_.size() && budget > 0;) {
    const int s = prefilling_[i];
    Seq& q = seqs_[static_cast<std::size_t>(s)];
    const std::int64_t target = q.prompt + q.generated;
    const std::int64_t chunk = std::min(target - q.computed, budget);
    const std::int64_t need = blocks_for(q.computed + chunk) - q.blocks;
    bool evicted_self = false;
    while (need > free_blocks_) {
      // vLLM pops the newest running request until the allocation fits; when that is this
      // sequence itself, it is preempted and the running requests' pass ends.
      if (preempt_newest() == s) {
        evicted_self = true;
        break;
      }
    }
    if (evicted_self) break;
    free_blocks_ -= need;
    q.blocks += need;
    q.chunk = chunk;
    budget -= chunk;
    iteration_prefills_.push_back(s);
    ++i;
    // preempt_newest may have removed later entries of prefilling_; `i` stays valid.
  }

  // Waiting requests in order, while the budget, max_num_seqs and the free blocks allow; none
  // in an iteration that had to preempt (vLLM's rule: no room was found for the running ones).
  while (stats_.preemptions == preempted_before && budget > 0 && !waiting_.empty() && running() < config_.max_num_seqs) {
    const int s = waiting_.front();
    Seq& q = seqs_[static_cast<std::size_t>(s)];
    const std::int64_t remaining = q.prompt + q.generated;  // computed is 0 while waiting
    if (!config_.chunked_prefill && remaining > budget) break;
    const std::int64_t chunk = std::min(remaining, budget);
    const std::int64_t need = blocks_for(chunk);
    // vLLM 0.19 (scheduler_reserve_full_isl, on by default) admits a request only when its
    // whole sequence fits the free blocks, though it allocates only this chunk's.
    if (need > free_blocks_ || (config_.reserve_full_sequence && blocks_for(remaining) > free_blocks_)) break;
    waiting_.pop_front();
    free_blocks_ -= need;
    q.blocks = need;
    q.computed = 0;
    q.chunk = chunk;
    budget -= chunk;
    link_tail(s);
    prefilling_.push_back(s);
    iteration_prefills_.push_back(s);
  }

  if (decode_count_ == 0 && iteration_prefills_.empty()) return false;
  batch_.decode_seqs = decode_count_;
  batch_.decode_context_tokens = decode_context_;
  batch_.sampled_seqs = decode_count_;
  for (int s : iteration_prefills_) {
    const Seq& q = seqs_[static_cast<std::size_t>(s)];
    const double c = static_cast<double>(q.chunk);
    batch_.prefill_seqs += 1;
    batch_.prefill_tokens += q.chunk;
    batch_.prefill_attention_pairs += c * static_cast<double>(q.computed) + c * (c + 1.0) / 2.0;
    if (q.computed + q.chunk == q.prompt + q.generated) batch_.sampled_seqs += 1;
  }
  iteration_decodes_ = decode_count_;
  iteration_measured_decodes_ = measured_decoding_;
  return true;
}

void LlmReplica::finish(int s, double t_us) {
  Seq& q = seqs_[static_cast<std::size_t>(s)];
  if (q.measured) {
    counts_.served += 1;
    const double latency = t_us - q.arrival_us;
    latencies_.add(latency);
    double tpot_us = 0.0;
    if (q.output > 1) {
      tpot_us = (t_us - q.first_token_us) / static_cast<double>(q.output - 1);
      stats_.tpot.add(tpot_us);
    }
    const double ttft_us = q.first_token_us - q.arrival_us;
    const bool ttft_ok = llm_.ttft_slo_ms <= 0 || ttft_us <= llm_.ttft_slo_ms * 1000.0;
    const bool tpot_ok = llm_.tpot_slo_ms <= 0 || tpot_us <= llm_.tpot_slo_ms * 1000.0;
    if (ttft_ok && tpot_ok) ++stats_.goodput;
    if (spec_.slo_ms > 0 && latency <= spec_.slo_ms * 1000.0) counts_.within_slo += 1;
    stats_.prompt_tokens += q.prompt;
    stats_.output_tokens += q.output;
    stats_.last_finish_us = std::max(stats_.last_finish_us, t_us);
  }
  note_ended(q, t_us);
  unlink(s);
  free_seqs_.push_back(s);
}

LlmIntervalSums& LlmReplica::bucket(std::int64_t index) {
  if (series_.sums.empty()) series_.first = index;
  const std::int64_t at = index - series_.first;  // >= 0: time never goes back
  if (at >= static_cast<std::int64_t>(series_.sums.size())) {
    series_.sums.resize(static_cast<std::size_t>(at + 1));
  }
  return series_.sums[static_cast<std::size_t>(at)];
}

void LlmReplica::record_interval(double begin_us, double end_us, std::int64_t tokens) {
  const double width = series_.interval_us;
  const double running_now = static_cast<double>(running());
  const double waiting_now = static_cast<double>(waiting());
  const double kv_now = static_cast<double>(kv_blocks_used());
  double from = begin_us;
  while (true) {
    const auto index = static_cast<std::int64_t>(std::floor(from / width));
    const double to = std::min(end_us, static_cast<double>(index + 1) * width);
    LlmIntervalSums& b = bucket(index);
    const double d = to - from;
    b.busy_us += d;
    b.running_us += d * running_now;
    b.waiting_us += d * waiting_now;
    b.kv_block_us += d * kv_now;
    if (to >= end_us) {
      b.output_tokens += tokens;  // produced at the iteration's end
      return;
    }
    from = to;
  }
}

void LlmReplica::complete_iteration() {
  const double t = now_;
  const double duration = t - iteration_start_us_;
  if (series_.interval_us > 0) {
    std::int64_t first_tokens = 0;
    for (int s : iteration_prefills_) {
      const Seq& q = seqs_[static_cast<std::size_t>(s)];
      if (q.computed + q.chunk == q.prompt + q.generated) ++first_tokens;
    }
    record_interval(iteration_start_us_, t, iteration_decodes_ + first_tokens);
  }
  ++stats_.iterations;
  stats_.busy_us += duration;
  stats_.batch_seq_us += duration * static_cast<double>(running());
  stats_.kv_used_block_us += duration * static_cast<double>(kv_blocks_used());
  stats_.peak_running = std::max(stats_.peak_running, running());
  // Every decoding sequence produced a token: the gap since its previous one is this iteration
  // (iterations run back to back while any sequence decodes).
  if (iteration_measured_decodes_ > 0) {
    stats_.itl.add(t - last_iteration_end_us_, static_cast<double>(iteration_measured_decodes_));
  }
  const std::int64_t done = step_;
  ++step_;
  decode_blocks_taken_ = false;
  decode_context_ += static_cast<double>(iteration_decodes_);
  while (!finishes_.empty() && finishes_.top().step <= done) {
    const Finish f = finishes_.top();
    finishes_.pop();
    Seq& q = seqs_[static_cast<std::size_t>(f.seq)];
    if (q.epoch != f.epoch || !q.decoding) continue;  // preempted since
    free_blocks_ += blocks_for(q.prompt + generated_at(q, step_) - 1);
    stop_decoding(f.seq);
    q.blocks = 0;
    finish(f.seq, t);
  }
  // Prefill chunks: a sequence that reaches the end of its prompt (and generated tokens, after
  // a preemption) samples its next token now.
  for (int s : iteration_prefills_) {
    Seq& q = seqs_[static_cast<std::size_t>(s)];
    q.computed += q.chunk;
    q.chunk = 0;
    if (q.computed < q.prompt + q.generated) continue;
    prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), s));
    q.generated += 1;
    if (q.first_token_us < 0) {
      q.first_token_us = t;
      if (q.measured) stats_.ttft.add(t - q.arrival_us);
    } else if (q.measured) {
      // Resumed after a preemption: the gap since its last token is one inter-token latency.
      stats_.itl.add(t - q.last_token_us);
    }
    if (q.generated >= q.output) {
      free_blocks_ += q.blocks;
      q.blocks = 0;
      finish(s, t);
    } else {
      free_blocks_ += q.blocks - blocks_for(q.prompt + q.generated - 1);
      q.blocks = blocks_for(q.prompt + q.generated - 1);
      start_decoding(s);
    }
  }
  iteration_prefills_.clear();
  last_iteration_end_us_ = t;
  in_iteration_ = false;
}

}  // namespace gpumux
