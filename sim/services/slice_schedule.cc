#include "sim/services/slice_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpumux {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// Cycles of the slowest other context (and slices) after which its state no longer depends on
// the past closely enough to matter for a request's wait (tests/services: the replica against
// the reference that simulates every kernel).
constexpr double kHorizonCycles = 4.0;
constexpr double kHorizonSlices = 2.0;
}  // namespace

void SliceSchedule::reset(double t_us, const SliceContext& context) {
  start_frame(t_us, context.fixed_lengths, context.launch_gap_us);
  slice_us_ = context.slice_us;
  switch_us_ = context.switch_us;
  const std::size_t n = context.others.size() + 1;
  contexts_.resize(n);
  // Duty cycles once the launch gap applies (as the reference and the rate model take them).
  double util_sum = 0.0;
  double longest_cycle = 0.0;
  for (std::size_t i = 1; i < n; ++i) {
    const SliceContender& o = context.others[i - 1];
    const double gap = gap_us(o.kernel_us, o.sm_util);
    contexts_[i].gap_us = gap;
    util_sum += gap > 0.0 ? o.kernel_us / (o.kernel_us + gap) : 1.0;
  }
  for (std::size_t i = 1; i < n; ++i) {
    const SliceContender& o = context.others[i - 1];
    const double own =
        contexts_[i].gap_us > 0.0 ? o.kernel_us / (o.kernel_us + contexts_[i].gap_us) : 1.0;
    contexts_[i].kernel_us = o.kernel_us * (1.0 + context.interference * (util_sum - own));
    contexts_[i].fixed_kernel = o.fixed_kernels;
    longest_cycle = std::max(longest_cycle, contexts_[i].kernel_us + contexts_[i].gap_us);
  }
  // The service's own duty cycle is not known here (it follows its requests): its kernels are
  // slowed by the others' duty cycles only.
  contexts_[0] = Context{};
  service_slowdown_ = 1.0 + context.interference * util_sum;
  horizon_us_ = kHorizonCycles * longest_cycle + kHorizonSlices * slice_us_;
  restart_others(t_us);
}

void SliceSchedule::restart_others(double t_us) {
  mode_ = Mode::kIdle;
  resident_ = -1;
  target_ = -1;
  waiting_.clear();
  contexts_[0].ready = false;
  for (std::size_t i = 1; i < contexts_.size(); ++i) {
    Context& c = contexts_[i];
    c.ready = false;
    c.ready_at = t_us + uniform() * (c.kernel_us + c.gap_us);
  }
  now_ = t_us;
}

double SliceSchedule::next_boundary() const {
  const double k = std::floor((now_ - slice_start_) / slice_us_) + 1.0;
  return slice_start_ + k * slice_us_;
}

void SliceSchedule::start_switch() {
  target_ = waiting_.front();
  waiting_.erase(waiting_.begin());
  mode_ = Mode::kSwitching;
  switch_end_ = now_ + switch_us_;
}

void SliceSchedule::make_ready(int who) {
  contexts_[who].ready = true;
  if (mode_ == Mode::kIdle) {
    if (resident_ == who || resident_ < 0) {  // still loaded: resumes without a switch
      resident_ = who;
      mode_ = Mode::kRunning;
      slice_start_ = now_;
    } else {
      waiting_.push_back(who);
      start_switch();
    }
    return;
  }
  // A newcomer waits at most until the running context's next slice boundary.
  if (mode_ == Mode::kRunning && waiting_.empty()) slice_end_ = next_boundary();
  waiting_.push_back(who);
}

double SliceSchedule::run(double until_us, bool until_service) {
  const int n = static_cast<int>(contexts_.size());
  for (;;) {
    enum class Event { kNone, kKernelEnd, kSliceEnd, kSwitchEnd, kReady } kind = Event::kNone;
    double t = until_service ? kInf : until_us;
    int who = -1;
    if (mode_ == Mode::kRunning) {
      const double kernel_end = now_ + contexts_[resident_].remaining_us;
      if (kernel_end < t) t = kernel_end, kind = Event::kKernelEnd;
      if (!waiting_.empty() && slice_end_ < t) t = slice_end_, kind = Event::kSliceEnd;
    } else if (mode_ == Mode::kSwitching && switch_end_ < t) {
      t = switch_end_, kind = Event::kSwitchEnd;
    }
    for (int i = 1; i < n; ++i) {
      if (!contexts_[i].ready && contexts_[i].ready_at < t)
        t = contexts_[i].ready_at, kind = Event::kReady, who = i;
    }
    t = std::max(t, now_);
    if (kind == Event::kNone) {  // nothing happens before until_us (never when until_service)
      if (mode_ == Mode::kRunning) contexts_[resident_].remaining_us -= until_us - now_;
      now_ = until_us;
      return until_us;
    }
    if (mode_ == Mode::kRunning) contexts_[resident_].remaining_us -= t - now_;
    now_ = t;
    switch (kind) {
      case Event::kKernelEnd: {
        const int r = resident_;
        Context& c = contexts_[r];
        if (r != 0 && c.gap_us <= 0.0) {  // never idle: its next kernel is ready at once
          c.remaining_us = draw_kernel(c);
          if (!waiting_.empty()) {
            waiting_.push_back(r);
            start_switch();
          }
          break;
        }
        c.ready = false;
        if (r == 0) {
          service_free_at_ = now_ + launch_gap_us_;
        } else {
          c.ready_at = now_ + draw(c.gap_us);
        }
        if (!waiting_.empty()) {
          start_switch();
        } else {
          mode_ = Mode::kIdle;
        }
        if (r == 0 && until_service) return now_;
        break;
      }
      case Event::kSliceEnd:  // preempted with others waiting; keeps its remaining kernel
        waiting_.push_back(resident_);
        start_switch();
        break;
      case Event::kSwitchEnd:
        resident_ = target_;
        mode_ = Mode::kRunning;
        slice_start_ = now_;
        slice_end_ = now_ + slice_us_;
        break;
      case Event::kReady:
        contexts_[who].remaining_us = draw_kernel(contexts_[who]);
        make_ready(who);
        break;
      case Event::kNone:
        break;
    }
  }
}

void SliceSchedule::start_burst(double work_us) {
  contexts_[0].remaining_us = work_us * service_slowdown_;
  make_ready(0);
}

}  // namespace gpumux
