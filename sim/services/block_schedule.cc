#include "sim/services/block_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpumux {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// The others restart in their stationary state (each independently in a kernel or a gap, with
// a residual length), so what the horizon must let settle is only their contention for SMs,
// which resolves within a few kernels: four of the longest other kernel (all its waves), not of
// its cycle (a client of duty 0.03 would otherwise ask 130 kernel lengths a request).
constexpr double kHorizonKernels = 4.0;
}  // namespace

void BlockSchedule::reset(double t_us, const BlockContext& context) {
  start_frame(t_us, context.fixed_lengths, context.launch_gap_us);
  sms_ = std::max(1, context.sms);
  interference_ = context.interference;
  const std::size_t n = context.others.size() + 1;
  clients_.resize(n);
  clients_[0].blocks = std::max(1, context.service_blocks);
  clients_[0].cap = std::max(1, context.service_cap);
  clients_[0].kernel_us = 0.0;
  clients_[0].gap_us = 0.0;
  double longest = 0.0;
  for (std::size_t i = 1; i < n; ++i) {
    const BlockContender& o = context.others[i - 1];
    Client& c = clients_[i];
    c.kernel_us = o.kernel_us;
    c.gap_us = gap_us(o.kernel_us, o.sm_util);
    c.blocks = std::max(1, o.blocks);
    c.cap = std::max(1, o.cap);
    const double waves = std::ceil(static_cast<double>(c.blocks) / std::min(c.blocks, c.cap));
    longest = std::max(longest, waves * c.kernel_us);
  }
  horizon_us_ = kHorizonKernels * longest;
  restart_others(t_us);
}

void BlockSchedule::restart_others(double t_us) {
  queue_.clear();
  groups_.clear();
  free_sms_ = sms_;
  now_ = t_us;
  for (std::size_t i = 0; i < clients_.size(); ++i) {
    Client& c = clients_[i];
    c.launched = false;
    c.waiting = 0;
    c.held = 0;
    c.ready_at = kInf;
    if (i == 0) continue;
    // Stationary: in a kernel with probability kernel / (kernel + gap), else in a gap, each
    // with its residual length (exponential: memoryless; fixed: uniform).
    const double residual = fixed_ ? uniform() : 1.0;
    if (uniform() * (c.kernel_us + c.gap_us) < c.kernel_us) {
      launch(static_cast<int>(i), fixed_ ? residual * c.kernel_us : draw(c.kernel_us));
    } else {
      c.ready_at = t_us + (fixed_ ? residual * c.gap_us : draw(c.gap_us));
    }
  }
  dispatch();
}

void BlockSchedule::launch(int who, double block_us) {
  Client& c = clients_[static_cast<std::size_t>(who)];
  c.launched = true;
  c.waiting = c.blocks;
  c.block_us = block_us;
  queue_.push_back(who);
}

void BlockSchedule::dispatch() {
  std::size_t kept = 0;
  for (std::size_t q = 0; q < queue_.size(); ++q) {
    const int who = queue_[q];
    Client& c = clients_[static_cast<std::size_t>(who)];
    const int take = free_sms_ > 0 ? std::min({c.waiting, free_sms_, c.cap - c.held}) : 0;
    if (take > 0) {
      const double others = static_cast<double>(sms_ - free_sms_ - c.held) / sms_;
      groups_.push_back(
          {now_ + c.block_us * (1.0 + interference_ * others), started_groups_++, who, take});
      std::push_heap(groups_.begin(), groups_.end(), later);
      c.waiting -= take;
      c.held += take;
      free_sms_ -= take;
    }
    if (c.waiting > 0) queue_[kept++] = queue_[q];
  }
  queue_.resize(kept);
}

double BlockSchedule::run(double until_us, bool until_service) {
  const int n = static_cast<int>(clients_.size());
  for (;;) {
    double t = until_service ? kInf : until_us;
    int who = -1;
    bool group_ends = false;
    // Ties as in the reference: the lower client first, and a client's launch before its
    // groups' ends.
    for (int i = 0; i < n; ++i) {
      const Client& c = clients_[static_cast<std::size_t>(i)];
      if (!c.launched && c.ready_at < t) t = c.ready_at, who = i;
    }
    if (!groups_.empty()) {
      const Group& g = groups_.front();
      if (g.end < t || (g.end == t && who >= 0 && g.client < who)) {
        t = g.end, who = g.client, group_ends = true;
      }
    }
    if (who < 0 || (!until_service && t > until_us)) {
      now_ = std::max(now_, until_us);
      return until_us;  // nothing before until_us (never when until_service)
    }
    now_ = std::max(t, now_);
    Client& c = clients_[static_cast<std::size_t>(who)];
    if (!group_ends) {  // an other's gap is over: it launches
      launch(who, draw(c.kernel_us));
    } else {  // a group of blocks ended
      std::pop_heap(groups_.begin(), groups_.end(), later);
      const Group done = groups_.back();
      groups_.pop_back();
      c.held -= done.blocks;
      free_sms_ += done.blocks;
      if (c.waiting == 0 && c.held == 0) {  // its kernel is complete
        c.launched = false;
        if (who == 0) {
          c.ready_at = kInf;
          service_free_at_ = now_ + launch_gap_us_;
          dispatch();
          if (until_service) return now_;
          continue;
        }
        const double gap = c.gap_us > 0.0 ? draw(c.gap_us) : 0.0;
        c.ready_at = now_ + gap;
        if (gap <= 0.0) launch(who, draw(c.kernel_us));
      }
    }
    dispatch();
  }
}

void BlockSchedule::start_burst(double work_us) {
  launch(0, work_us);
  dispatch();
}

}  // namespace gpumux
