// How an LLM replica's clock moves: alone (its iterations back to back at its rate), or as a
// member of the group of endpoints sharing its GPU (sim/llm/llm_gpu_group.h), whose clock
// interleaves every member's host and GPU parts. The scheduling of each iteration is
// llm_replica.cc's.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/llm/llm_gpu_group.h"
#include "sim/llm/llm_replica.h"

namespace gpumux {

void LlmReplica::join_group(double t_us, LlmGpuGroup& group, double thread_fraction) {
  const double own = llm_.sharing.mps_thread_fraction;
  if (group_ == &group) {
    thread_fraction_ = own > 0.0 ? own : thread_fraction;  // from its next iteration
    return;
  }
  leave_group(t_us);
  solo_advance_to(t_us);
  group.advance_to(t_us);
  group_ = &group;
  thread_fraction_ = own > 0.0 ? own : thread_fraction;
  speed_ = 0.0;
  now_ = std::max(now_, t_us);
  phase_ = Phase::kIdle;
  if (in_iteration_) {
    // What is left of the iteration (full-speed microseconds) becomes the rest of a GPU part.
    const IterationTimeModel::Split time = llm_.time_model->split(batch_);
    split_gpu_part(time.total_us, time.total_us - std::clamp(time.host_us, 0.0, time.total_us));
    gpu_left_ = gpu_full_us_ > 0.0 ? std::clamp(work_left_us_ / gpu_full_us_, 0.0, 1.0) : 0.0;
    phase_ = Phase::kGpu;
  }
  plan_failed_ = false;
  group.join(*this);
}

void LlmReplica::leave_group(double t_us) {
  if (!group_) return;
  group_->advance_to(t_us);
  if (in_iteration_) {
    work_left_us_ = phase_ == Phase::kHost
                        ? std::max(0.0, host_end_us_ - now_) + gpu_full_us_
                        : gpu_left_ * gpu_full_us_;
  }
  LlmGpuGroup* group = group_;
  group_ = nullptr;
  group->leave(*this);
  phase_ = Phase::kIdle;
  speed_ = 0.0;
}

void LlmReplica::advance_to(double t_us) {
  if (group_) {
    group_->advance_to(t_us);
  } else {
    solo_advance_to(t_us);
  }
}

double LlmReplica::group_next_event() const {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  if (ended_) return kNever;
  if (rate_ <= 0.0) return source_.next_at();  // down: arrivals only queue
  switch (phase_) {
    case Phase::kIdle:
      return !waiting_.empty() && !plan_failed_ ? now_ : source_.next_at();
    case Phase::kHost:
      return host_end_us_;
    case Phase::kGpu:
      if (gpu_left_ <= 0.0 || gpu_alone_us_ <= 0.0) return now_;
      return speed_ > 0.0 ? now_ + gpu_left_ * gpu_alone_us_ / speed_ : kNever;
  }
  return kNever;
}

void LlmReplica::group_progress(double t_us) {
  if (phase_ == Phase::kGpu && speed_ > 0.0 && gpu_alone_us_ > 0.0 && t_us > now_) {
    gpu_left_ = std::max(0.0, gpu_left_ - (t_us - now_) * speed_ / gpu_alone_us_);
  }
  now_ = std::max(now_, t_us);
}

LlmReplica::GroupEvent LlmReplica::group_handle(double t_us) {
  GroupEvent event;
  now_ = std::max(now_, t_us);
  if (ended_) return event;
  if (rate_ <= 0.0) {
    while (source_.next_at() <= now_) on_arrival(source_.take());
    return event;
  }
  switch (phase_) {
    case Phase::kIdle:
      event.wants_gpu = group_start_iteration() && phase_ == Phase::kGpu;
      break;
    case Phase::kHost:
      phase_ = Phase::kGpu;
      event.wants_gpu = true;
      break;
    case Phase::kGpu:
      gpu_left_ = 0.0;
      complete_iteration();
      phase_ = Phase::kIdle;
      event.released_gpu = true;
      plan_failed_ = false;
      event.wants_gpu = group_start_iteration() && phase_ == Phase::kGpu;
      break;
  }
  return event;
}

bool LlmReplica::group_start_iteration() {
  admit_arrivals();
  if (!plan_iteration()) {
    plan_failed_ = true;
    return false;
  }
  plan_failed_ = false;
  in_iteration_ = true;
  iteration_start_us_ = now_;
  if (last_iteration_end_us_ < 0) last_iteration_end_us_ = now_;
  const IterationTimeModel::Split time = llm_.time_model->split(batch_);
  const double host = std::clamp(time.host_us, 0.0, time.total_us);
  split_gpu_part(time.total_us, time.total_us - host);
  gpu_left_ = 1.0;
  host_end_us_ = now_ + host;
  phase_ = host > 0.0 ? Phase::kHost : Phase::kGpu;
  return true;
}

void LlmReplica::split_gpu_part(double total_us, double gpu_us) {
  gpu_full_us_ = gpu_us;
  double memory = 0.0;
  if (llm_.half_bandwidth_model) {
    memory = std::clamp(llm_.half_bandwidth_model->iteration_us(batch_) - total_us, 0.0, gpu_us);
  }
  const double compute = gpu_us - memory;
  gpu_alone_us_ = group_ && group_->mode() == LlmGpuGroup::Mode::kConcurrent
                      ? compute / thread_fraction_ + memory
                      : gpu_us;
  sm_demand_ = gpu_alone_us_ > 0.0 ? compute / gpu_alone_us_ : 0.0;
  bw_demand_ = gpu_alone_us_ > 0.0 ? memory / gpu_alone_us_ : 0.0;
}

void LlmReplica::solo_advance_to(double t_us) {
  while (true) {
    if (in_iteration_) {
      if (rate_ <= 0.0) {
        now_ = std::max(now_, t_us);
        return;
      }
      const double end = now_ + work_left_us_ / rate_;
      if (end <= t_us) {
        now_ = end;
        work_left_us_ = 0.0;
        complete_iteration();
        continue;
      }
      work_left_us_ -= (t_us - now_) * rate_;
      now_ = t_us;
      return;
    }
    if (rate_ <= 0.0 || ended_) {
      // Down or not started: arrivals wait in the queue (the GPU is not serving); a killed
      // replica's source is stopped, so nothing arrives.
      if (!ended_) {
        while (source_.next_at() <= t_us) {
          now_ = std::max(now_, source_.next_at());
          on_arrival(source_.take());
        }
      }
      now_ = std::max(now_, t_us);
      return;
    }
    admit_arrivals();
    if (plan_iteration()) {
      in_iteration_ = true;
      iteration_start_us_ = now_;
      if (last_iteration_end_us_ < 0) last_iteration_end_us_ = now_;
      work_left_us_ = llm_.time_model->iteration_us(batch_);
      continue;
    }
    const double next = source_.next_at();
    if (next > t_us) {
      now_ = t_us;
      return;
    }
    now_ = next;
  }
}

}  // namespace gpumux
