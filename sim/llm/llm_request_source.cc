#include "sim/llm/llm_request_source.h"

#include <cmath>
#include <random>

namespace gpumux {

LlmRequestSource::LlmRequestSource(const LlmLoad& load, double origin_us, std::uint64_t seed)
    : load_(load), origin_us_(origin_us), rng_(seed), last_us_(origin_us) {
  if (load_.kind == LlmLoadKind::kClosed) {
    for (int c = 0; c < load_.clients; ++c) ready_.push(origin_us);
  }
  next_.at_us = kNever;
  draw_next();
}

double LlmRequestSource::gap_us() {
  const double mean_us = 1e6 / load_.rate_per_s;
  if (load_.arrival_cv == 1.0) {
    return std::exponential_distribution<double>(1.0 / mean_us)(rng_);
  }
  // Gamma gaps with the given mean and coefficient of variation: shape 1/cv^2.
  const double shape = 1.0 / (load_.arrival_cv * load_.arrival_cv);
  return std::gamma_distribution<double>(shape, mean_us / shape)(rng_);
}

void LlmRequestSource::draw_tokens(LlmArrival& a) {
  const LlmTokenLengths& t = load_.tokens;
  if (t.pairs && !t.pairs->empty()) {
    std::uniform_int_distribution<std::size_t> pick(0, t.pairs->size() - 1);
    const auto& p = (*t.pairs)[pick(rng_)];
    a.prompt_tokens = p.first;
    a.output_tokens = p.second;
  } else {
    a.prompt_tokens = t.prompt_tokens;
    a.output_tokens = t.output_tokens;
  }
}

void LlmRequestSource::draw_next() {
  next_ = LlmArrival{};
  next_.at_us = kNever;
  if (stopped_) return;
  switch (load_.kind) {
    case LlmLoadKind::kTrace: {
      if (!load_.rows || row_ >= load_.rows->size()) return;
      const LlmRequestRow& r = (*load_.rows)[row_];
      next_.at_us = origin_us_ + r.arrival_s * 1e6;
      next_.prompt_tokens = r.prompt_tokens;
      next_.output_tokens = r.output_tokens;
      return;
    }
    case LlmLoadKind::kGenerated: {
      last_us_ += gap_us();
      next_.at_us = last_us_;
      draw_tokens(next_);
      return;
    }
    case LlmLoadKind::kClosed: {
      const std::int64_t total = load_.warmup_requests + load_.measured_requests;
      if (ready_.empty() || (load_.measured_requests > 0 && issued_ >= total)) return;
      // Tokens are drawn when the request is taken: when it is sent depends on when others
      // end, and the draws must not depend on how often that changes.
      next_.at_us = ready_.top();
      next_.measured = issued_ >= load_.warmup_requests;
      return;
    }
  }
}

LlmArrival LlmRequestSource::take() {
  LlmArrival a = next_;
  if (load_.kind == LlmLoadKind::kClosed) draw_tokens(a);
  switch (load_.kind) {
    case LlmLoadKind::kTrace:
      ++row_;
      break;
    case LlmLoadKind::kGenerated:
      break;
    case LlmLoadKind::kClosed:
      ready_.pop();
      ++issued_;
      break;
  }
  draw_next();
  return a;
}

void LlmRequestSource::request_ended(double t_us) {
  if (load_.kind != LlmLoadKind::kClosed || stopped_) return;
  ready_.push(t_us);
  draw_next();  // the earliest ready client may have changed
}

void LlmRequestSource::stop(double /*t_us*/) {
  stopped_ = true;
  next_.at_us = kNever;
}

void LlmRequestSource::restart(double t_us) {
  if (!stopped_) return;
  stopped_ = false;
  switch (load_.kind) {
    case LlmLoadKind::kTrace:
      while (load_.rows && row_ < load_.rows->size() &&
             origin_us_ + (*load_.rows)[row_].arrival_s * 1e6 < t_us) {
        ++row_;
        ++skipped_;
      }
      break;
    case LlmLoadKind::kGenerated:
      // A Poisson stream has no memory: start drawing afresh from the restart; the arrivals of
      // the down time are not simulated (they would all be dropped).
      last_us_ = t_us;
      break;
    case LlmLoadKind::kClosed:
      // Every client whose request was dropped sends its next one at the restart.
      while (!ready_.empty()) ready_.pop();
      for (int c = 0; c < load_.clients; ++c) ready_.push(t_us);
      break;
  }
  draw_next();
}

}  // namespace gpumux
