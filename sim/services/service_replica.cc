#include "sim/services/service_replica.h"

#include <algorithm>
#include <cmath>

namespace gpumux {

namespace {
constexpr double kNever = RequestArrivals::kNever;
}  // namespace

// ---- Request level ----

RequestLevelReplica::RequestLevelReplica(const ServiceSpec& spec, double origin_us,
                                         std::uint64_t seed)
    : spec_(spec), arrivals_(spec, origin_us, seed), now_(origin_us), seed_(seed) {
  next_arrival_ = arrivals_.next();
}

void RequestLevelReplica::advance_to(double t_us) {
  for (;;) {
    const double completion = (batch_.empty() || rate_ <= 0) ? kNever
                              : scheduled_ != Schedule::kFluid ? batch_end_
                                                             : now_ + work_left_us_ / rate_;
    const double arrival = ended_ ? kNever : next_arrival_;
    // Arrivals at t_us itself belong to what follows (the new rate, or after the end).
    const bool completes = completion <= t_us;
    if (!completes && !(arrival < t_us)) break;
    if (completes && completion <= arrival) {  // a finish and an arrival at once: finish first
      move_to(completion);
      finish_batch();
      start_batch();
    } else {
      move_to(arrival);
      on_arrival(arrival);
      next_arrival_ = arrivals_.next();
    }
  }
  move_to(t_us);
}

void RequestLevelReplica::move_to(double t_us) {
  if (t_us <= now_) return;
  if (!batch_.empty() && rate_ > 0 && scheduled_ == Schedule::kFluid) {
    work_left_us_ = std::max(0.0, work_left_us_ - (t_us - now_) * rate_);
  }
  now_ = t_us;
}

void RequestLevelReplica::on_arrival(double t_us) {
  ++counts_.arrived;
  if (rate_ <= 0) {  // down: nobody to take it
    ++counts_.dropped;
    return;
  }
  expire_waiting(t_us);
  if (spec_.max_queue > 0 && waiting_.size() >= static_cast<std::size_t>(spec_.max_queue)) {
    ++counts_.dropped;
    return;
  }
  waiting_.push_back(t_us);
  if (batch_.empty()) start_batch();
}

void RequestLevelReplica::expire_waiting(double t_us) {
  if (spec_.timeout_ms <= 0) return;
  const double timeout_us = spec_.timeout_ms * 1000.0;
  // FIFO with one timeout: the head always has the earliest deadline.
  while (!waiting_.empty() && waiting_.front() + timeout_us <= t_us) {
    waiting_.pop_front();
    ++counts_.timed_out;
  }
}

void RequestLevelReplica::start_batch() {
  if (rate_ <= 0) return;
  expire_waiting(now_);
  if (waiting_.empty()) return;
  const std::size_t b = std::min(waiting_.size(), static_cast<std::size_t>(spec_.max_batch));
  batch_.assign(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(b));
  waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(b));
  work_left_us_ = spec_.batch_work_us(static_cast<int>(b));
  if (scheduled_ != Schedule::kFluid) {
    // The CPU part runs first and waits for nobody; only the GPU burst meets the schedule.
    const double cpu_us = work_left_us_ * (1.0 - spec_.gpu_busy_share);
    batch_end_ = schedule_->serve(now_ + cpu_us, work_left_us_ - cpu_us);
  }
}

void RequestLevelReplica::finish_batch() {
  const double slo_us = spec_.slo_ms * 1000.0;
  for (double arrived : batch_) {
    const double latency = now_ - arrived;
    latencies_.add(latency);
    ++counts_.served;
    if (slo_us > 0 && latency <= slo_us) ++counts_.within_slo;
  }
  batch_.clear();
  work_left_us_ = 0.0;
}

void RequestLevelReplica::set_rate(double t_us, double rate) {
  advance_to(t_us);
  const bool was_down = rate_ <= 0;
  rate_ = rate;
  if (was_down && batch_.empty()) start_batch();
}

namespace {
bool same_context(const SliceContext& a, const SliceContext& b) {
  if (a.slice_us != b.slice_us || a.switch_us != b.switch_us ||
      a.interference != b.interference || a.launch_gap_us != b.launch_gap_us ||
      a.fixed_lengths != b.fixed_lengths || a.others.size() != b.others.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.others.size(); ++i) {
    if (a.others[i].sm_util != b.others[i].sm_util ||
        a.others[i].kernel_us != b.others[i].kernel_us) {
      return false;
    }
  }
  return true;
}

bool same_context(const BlockContext& a, const BlockContext& b) {
  if (a.sms != b.sms || a.interference != b.interference ||
      a.launch_gap_us != b.launch_gap_us || a.fixed_lengths != b.fixed_lengths ||
      a.service_blocks != b.service_blocks || a.service_cap != b.service_cap ||
      a.others.size() != b.others.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.others.size(); ++i) {
    const BlockContender& x = a.others[i];
    const BlockContender& y = b.others[i];
    if (x.sm_util != y.sm_util || x.kernel_us != y.kernel_us || x.blocks != y.blocks ||
        x.cap != y.cap) {
      return false;
    }
  }
  return true;
}
}  // namespace

template <class Kind, class Context>
Kind& RequestLevelReplica::restart(std::unique_ptr<Kind>& schedule, std::uint64_t seed,
                                   Context& kept, const Context& given) {
  if (!schedule) schedule = std::make_unique<Kind>(seed);
  kept = given;  // copied: `given` is valid during set_context only
  schedule->reset(now_, kept);
  return *schedule;
}

void RequestLevelReplica::set_context(double t_us, const ServiceGpuContext& context) {
  advance_to(t_us);
  const Schedule kind = context.slices   ? Schedule::kSlices
                        : context.blocks ? Schedule::kBlocks
                                         : Schedule::kFluid;
  if (kind == Schedule::kFluid) {
    if (scheduled_ != Schedule::kFluid && !batch_.empty()) {
      // The batch's time left, taken as full-speed work, goes on at the fluid rate.
      work_left_us_ = std::max(0.0, batch_end_ - now_);
    }
    scheduled_ = Schedule::kFluid;
    return;
  }
  // The same GPU as before: the schedule goes on.
  if (kind == scheduled_ && kind == Schedule::kSlices &&
      same_context(slice_context_, *context.slices)) {
    return;
  }
  if (kind == scheduled_ && kind == Schedule::kBlocks &&
      same_context(block_context_, *context.blocks)) {
    return;
  }
  // Each schedule draws from its own stream: a different draw order never moves the replica's
  // arrivals.
  if (kind == Schedule::kSlices) {
    schedule_ = &restart(slice_schedule_, seed_ ^ kSliceSalt, slice_context_, *context.slices);
  } else {
    schedule_ = &restart(block_schedule_, seed_ ^ kBlockSalt, block_context_, *context.blocks);
  }
  if (!batch_.empty()) {
    // What is left of the batch in service becomes a burst on the new schedule.
    const double left =
        scheduled_ != Schedule::kFluid ? std::max(0.0, batch_end_ - now_) : work_left_us_;
    batch_end_ = schedule_->serve(now_, left);
  }
  scheduled_ = kind;
}

void RequestLevelReplica::kill(double t_us) {
  advance_to(t_us);
  counts_.dropped += static_cast<double>(waiting_.size() + batch_.size());
  waiting_.clear();
  batch_.clear();
  work_left_us_ = 0.0;
  rate_ = 0.0;
  scheduled_ = Schedule::kFluid;  // the schedule still holds the dropped burst: reset on restart
}

void RequestLevelReplica::end(double t_us) {
  if (ended_) return;
  advance_to(t_us);
  expire_waiting(t_us);
  counts_.unfinished += static_cast<double>(waiting_.size() + batch_.size());
  waiting_.clear();
  batch_.clear();
  work_left_us_ = 0.0;
  rate_ = 0.0;
  ended_ = true;
}

// ---- Analytic ----

double MD1::wait_tail(double t_us) const {
  if (t_us <= 0) return rho;
  return std::min(rho, tail_constant * std::exp(-decay_per_us * t_us));
}

MD1 md1(double service_us, double rho) {
  MD1 m;
  m.service_us = service_us;
  m.rho = rho;
  m.mean_wait_us = rho * service_us / (2.0 * (1.0 - rho));
  // The positive root x = gamma * S of rho (e^x - 1) = x lies beyond the minimum at ln(1/rho).
  auto g = [rho](double x) { return rho * std::expm1(x) - x; };
  double lo = std::log(1.0 / rho);
  double hi = std::max(2.0 * lo, 1.0);
  while (g(hi) <= 0) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (g(mid) > 0 ? hi : lo) = mid;
  }
  const double x = 0.5 * (lo + hi);
  m.decay_per_us = x / service_us;
  m.tail_constant = std::min(1.0, (1.0 - rho) / (rho * std::exp(x) - 1.0));
  return m;
}

double md1_abandon_mass(const MD1& m, double per_us, double timeout_us) {
  // Level crossing for the virtual wait V above T: f(v) = lambda (P(V=0) 1{v < S} +
  // P(V in (max(0, v - S), T])), integrated over v in (T, T + S], with the unscaled shape
  // P(V = 0) = 1 - rho and P(V in (0, x]) = rho - tail(x).
  const double s = m.service_us;
  const double tail_t = m.wait_tail(timeout_us);
  double mass = (1.0 - m.rho) * per_us * std::max(0.0, s - timeout_us);
  constexpr int kSteps = 400;
  const double h = s / kSteps;
  double integral = 0.0;
  for (int i = 0; i <= kSteps; ++i) {
    const double u = timeout_us - s + i * h;
    const double g = m.wait_tail(std::max(0.0, u)) - tail_t;
    integral += (i == 0 || i == kSteps ? 0.5 : 1.0) * g;
  }
  return mass + per_us * integral * h;
}

AnalyticReplica::AnalyticReplica(const ServiceSpec& spec, double origin_us, std::uint64_t seed)
    : spec_(spec), arrivals_(spec, origin_us, seed), now_(origin_us) {}

void AnalyticReplica::advance_to(double t_us) {
  if (ended_ || t_us <= now_) return;
  const double service_us = rate_ > 0 ? spec_.batch_work_us(1) / rate_ : 0.0;
  arrivals_.for_each_piece(now_, t_us, [&](double begin, double end, double per_us) {
    if (rate_ <= 0) {
      const double n = per_us * (end - begin);
      counts_.arrived += n;
      counts_.dropped += n;
    } else if (per_us > 0) {
      intervals_[{service_us, per_us}] += end - begin;
    }
  });
  now_ = t_us;
}

void AnalyticReplica::set_rate(double t_us, double rate) {
  advance_to(t_us);
  rate_ = rate;
}

void AnalyticReplica::kill(double t_us) {
  advance_to(t_us);
  rate_ = 0.0;
}

void AnalyticReplica::end(double t_us) {
  if (ended_) return;
  advance_to(t_us);
  ended_ = true;
  rate_ = 0.0;
  finalize();
}

void AnalyticReplica::finalize() {
  const double slo_us = spec_.slo_ms * 1000.0;
  const double timeout_us = spec_.timeout_ms * 1000.0;
  using H = LatencyHistogram;
  for (const auto& [key, duration] : intervals_) {
    const auto [s, per_us] = key;
    const double n = per_us * duration;
    const double rho = per_us * s;
    counts_.arrived += n;
    if (rho < 1.0) {
      const MD1 m = md1(s, rho);
      // With a timeout T the waits at or below T keep the shape of the queue without one,
      // scaled by kappa; abandonments are the mass above T (md1_abandon_mass).
      double kappa = 1.0;
      double p_timeout = 0.0;
      if (timeout_us > 0) {
        const double above = md1_abandon_mass(m, per_us, timeout_us);
        kappa = 1.0 / (1.0 - m.wait_tail(timeout_us) + above);
        p_timeout = kappa * above;
      }
      counts_.served += n * (1.0 - p_timeout);
      counts_.timed_out += n * p_timeout;
      if (slo_us > 0 && slo_us >= s) {
        const double w = timeout_us > 0 ? std::min(slo_us - s, timeout_us) : slo_us - s;
        counts_.within_slo += n * kappa * (1.0 - m.wait_tail(w));
      }
      // The atom (no wait), then the waiting-time tail spread over the bins it covers.
      const std::size_t first = H::bin_of(s);
      latencies_.add_to_bin(first, n * kappa * (1.0 - rho));
      double sum_us = n * kappa * (1.0 - rho) * s;
      for (std::size_t k = first; k < H::kBins; ++k) {
        const double w0 = std::max(0.0, H::lower_edge(k) - s);
        double w1 = k + 1 < H::kBins ? H::lower_edge(k + 1) - s : RequestArrivals::kNever;
        if (timeout_us > 0) w1 = std::min(w1, timeout_us);
        const double tail1 = std::isinf(w1) ? 0.0 : m.wait_tail(w1);
        const double mass = n * kappa * (m.wait_tail(w0) - tail1);
        if (mass > 0) {
          latencies_.add_to_bin(k, mass);
          sum_us += mass * (s + (std::isinf(w1) ? w0 : 0.5 * (w0 + w1)));
        }
        if ((timeout_us > 0 && w1 >= timeout_us) || tail1 < 1e-12 * rho) break;
      }
      // Without a timeout the mean is exact (Pollaczek-Khinchine); with one, from the bins.
      latencies_.add_sum(timeout_us > 0 ? sum_us : n * (s + m.mean_wait_us));
    } else {
      // Overloaded: a fluid queue from empty. Arrivals at tau wait (rho - 1) tau; those
      // arriving before d / rho finish within the interval, the rest give up (timeout) or are
      // left over (unfinished). Waits of the served are uniform on [0, max_wait].
      const double served = n / rho;
      counts_.served += served;
      (timeout_us > 0 ? counts_.timed_out : counts_.unfinished) += n - served;
      double max_wait = (rho - 1.0) * duration / rho;
      if (timeout_us > 0) max_wait = std::min(max_wait, timeout_us);
      if (slo_us > 0) {
        counts_.within_slo += served * (max_wait > 0 ? std::clamp((slo_us - s) / max_wait, 0.0, 1.0)
                                                     : (slo_us >= s ? 1.0 : 0.0));
      }
      const std::size_t first = H::bin_of(s);
      const std::size_t last = H::bin_of(s + max_wait);
      for (std::size_t k = first; k <= last; ++k) {
        const double lo = std::max(s, H::lower_edge(k));
        const double hi = k == last ? s + max_wait : H::lower_edge(k + 1);
        const double share = max_wait > 0 ? (hi - lo) / max_wait : 1.0;
        latencies_.add_to_bin(k, served * share);
      }
      latencies_.add_sum(served * (s + 0.5 * max_wait));
    }
  }
  intervals_.clear();
}

}  // namespace gpumux
