#include "sim/llm/llm_gpu_group.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/llm/llm_replica.h"

namespace gpumux {

namespace {
constexpr double kNever = std::numeric_limits<double>::infinity();
}  // namespace

LlmGpuGroup::LlmGpuGroup(Mode mode, double slice_us, double switch_us)
    : mode_(mode), slice_us_(slice_us), switch_us_(switch_us) {
  if (mode == Mode::kTurns && !(slice_us > 0.0 && switch_us >= 0.0)) {
    throw std::invalid_argument("LlmGpuGroup: a time-sliced GPU needs slice_us > 0 and switch_us >= 0");
  }
}

void LlmGpuGroup::join(LlmReplica& member) {
  members_.push_back(&member);
  if (usage_.first_us < 0.0) usage_.first_us = now_;
  usage_.peak_members = std::max(usage_.peak_members, members_.size());
  due_.push_back(0);
  member.now_ = std::max(member.now_, now_);
  if (member.phase_ == LlmReplica::Phase::kGpu) wants_gpu(&member);
}

void LlmGpuGroup::leave(LlmReplica& member) {
  const auto it = std::find(members_.begin(), members_.end(), &member);
  if (it == members_.end()) return;
  due_.erase(due_.begin() + (it - members_.begin()));
  members_.erase(it);
  waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), &member), waiting_.end());
  if (resident_ == &member) resident_ = nullptr;
  if (holder_ == &member) hand_over();
}

void LlmGpuGroup::hand_over() {
  holder_ = nullptr;
  gpu_ = Gpu::kIdle;
  if (waiting_.empty()) return;
  LlmReplica* next = waiting_.front();
  waiting_.erase(waiting_.begin());
  grant(next);
}

void LlmGpuGroup::grant(LlmReplica* m) {
  holder_ = m;
  if (resident_ == nullptr || resident_ == m || switch_us_ <= 0.0) {
    if (resident_ != nullptr && resident_ != m) ++switches_;
    resident_ = m;
    gpu_ = Gpu::kRunning;
    slice_start_ = now_;
    slice_end_ = now_ + slice_us_;
    return;
  }
  ++switches_;
  gpu_ = Gpu::kSwitching;
  switch_end_ = now_ + switch_us_;
}

void LlmGpuGroup::wants_gpu(LlmReplica* m) {
  if (mode_ != Mode::kTurns || holder_ == m) return;
  if (std::find(waiting_.begin(), waiting_.end(), m) != waiting_.end()) return;
  if (gpu_ == Gpu::kIdle) {
    grant(m);
  } else {
    waiting_.push_back(m);
  }
}

void LlmGpuGroup::released_gpu(LlmReplica* m) {
  if (mode_ != Mode::kTurns) return;
  // A part that was empty when it joined ends without the GPU: it only leaves the queue.
  waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), m), waiting_.end());
  if (holder_ == m) hand_over();
}

void LlmGpuGroup::set_speeds() {
  if (mode_ == Mode::kTurns) {
    for (LlmReplica* m : members_) {
      m->speed_ = gpu_ == Gpu::kRunning && m == holder_ ? 1.0 : 0.0;
    }
    return;
  }
  double sms = 0.0, bandwidth = 0.0;
  for (const LlmReplica* m : members_) {
    if (m->phase_ != LlmReplica::Phase::kGpu || m->rate_ <= 0.0) continue;
    sms += m->sm_demand_;
    bandwidth += m->bw_demand_;
  }
  const double speed = 1.0 / std::max({1.0, sms, bandwidth});
  for (LlmReplica* m : members_) m->speed_ = speed;
}

double LlmGpuGroup::own_event() const {
  if (mode_ != Mode::kTurns) return kNever;
  if (gpu_ == Gpu::kSwitching) return switch_end_;
  if (gpu_ == Gpu::kRunning && !waiting_.empty()) return slice_end_;
  return kNever;
}

void LlmGpuGroup::handle_own() {
  if (gpu_ == Gpu::kSwitching && switch_end_ <= now_) {
    resident_ = holder_;
    gpu_ = Gpu::kRunning;
    slice_start_ = now_;
    slice_end_ = now_ + slice_us_;
    return;
  }
  if (gpu_ == Gpu::kRunning && !waiting_.empty() && slice_end_ <= now_) {
    // The slice expired while others wait: the holder queues behind them.
    LlmReplica* was = holder_;
    LlmReplica* next = waiting_.front();
    waiting_.erase(waiting_.begin());
    waiting_.push_back(was);
    grant(next);
  }
}

void LlmGpuGroup::account(double to_us) {
  if (usage_.first_us < 0.0 || !(to_us > now_)) return;
  const double dt = to_us - now_;
  double sms = 0.0, bandwidth = 0.0;
  for (const LlmReplica* m : members_) {
    if (m->phase_ != LlmReplica::Phase::kGpu || m->speed_ <= 0.0) continue;
    sms += m->sm_demand_ * m->speed_;
    bandwidth += m->bw_demand_ * m->speed_;
  }
  if (sms > 0.0 || bandwidth > 0.0) usage_.busy_us += dt;
  usage_.sm_us += dt * std::min(1.0, sms);
  usage_.bandwidth_us += dt * std::min(1.0, bandwidth);
  usage_.span_us = to_us - usage_.first_us;
}

bool LlmGpuGroup::skip_rounds(double until_us) {
  if (mode_ != Mode::kTurns || gpu_ != Gpu::kRunning || waiting_.empty() ||
      slice_start_ != now_) {
    return false;
  }
  // The rotation: the holder, then the queue; every part in it must outlast the rounds.
  double least_work = holder_->gpu_left_ * holder_->gpu_alone_us_;
  for (const LlmReplica* m : waiting_) {
    least_work = std::min(least_work, m->gpu_left_ * m->gpu_alone_us_);
  }
  double next_other = until_us;
  for (const LlmReplica* m : members_) {
    if (m == holder_ || std::find(waiting_.begin(), waiting_.end(), m) != waiting_.end()) continue;
    next_other = std::min(next_other, m->group_next_event());
  }
  const double parts = static_cast<double>(waiting_.size() + 1);
  const double round_us = parts * (slice_us_ + switch_us_);
  const double by_work = std::ceil(least_work / slice_us_) - 1.0;
  const double by_time = std::floor((next_other - now_) / round_us);
  const double rounds = std::min(by_work, by_time);
  if (!(rounds >= 1.0)) return false;
  const double work = rounds * slice_us_;
  const auto take = [&](LlmReplica* m) {
    m->gpu_left_ = std::max(0.0, m->gpu_left_ - work / m->gpu_alone_us_);
    usage_.busy_us += work;
    usage_.sm_us += work * std::min(1.0, m->sm_demand_);
    usage_.bandwidth_us += work * std::min(1.0, m->bw_demand_);
  };
  take(holder_);
  for (LlmReplica* m : waiting_) take(m);
  switches_ += static_cast<long long>(rounds * parts);
  now_ += rounds * round_us;
  usage_.span_us = now_ - usage_.first_us;
  for (LlmReplica* m : members_) m->now_ = std::max(m->now_, now_);
  slice_start_ = now_;
  slice_end_ = now_ + slice_us_;
  return true;
}

void LlmGpuGroup::advance_to(double t_us) {
  if (advancing_) return;
  advancing_ = true;
  while (true) {
    skip_rounds(t_us);
    set_speeds();
    double next = own_event();
    for (const LlmReplica* m : members_) next = std::min(next, m->group_next_event());
    if (next > t_us) break;
    // Who is due is decided before anyone moves, so that rounding in the progress cannot hide
    // an event.
    const double own = own_event();
    for (std::size_t i = 0; i < members_.size(); ++i) {
      due_[i] = members_[i]->group_next_event() <= next ? 1 : 0;
    }
    account(next);
    for (LlmReplica* m : members_) m->group_progress(next);
    now_ = std::max(now_, next);
    if (own <= next) handle_own();
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (!due_[i]) continue;
      LlmReplica* m = members_[i];
      const LlmReplica::GroupEvent event = m->group_handle(next);
      if (event.released_gpu) released_gpu(m);
      if (event.wants_gpu) wants_gpu(m);
    }
  }
  account(t_us);
  for (LlmReplica* m : members_) m->group_progress(t_us);
  now_ = std::max(now_, t_us);
  if (usage_.first_us >= 0.0) usage_.span_us = std::max(usage_.span_us, now_ - usage_.first_us);
  advancing_ = false;
}

}  // namespace gpumux
