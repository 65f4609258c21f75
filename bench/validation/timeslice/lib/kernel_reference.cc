#include "bench/validation/timeslice/lib/kernel_reference.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>

namespace gpumux {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Portable samplers on top of mt19937_64 (whose output the standard fixes bit for bit).
class Sampler {
 public:
  Sampler(std::uint64_t seed, BurstDistribution distribution)
      : rng_(seed), distribution_(distribution) {}

  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

  double draw(double mean) {
    if (mean <= 0.0) return 0.0;
    if (distribution_ == BurstDistribution::kFixed) return mean;
    return -mean * std::log1p(-uniform());
  }

 private:
  std::mt19937_64 rng_;
  BurstDistribution distribution_;
};

struct JobState {
  double kernel_us = 0.0;  // mean burst, interference included
  double gap_us = 0.0;     // mean CPU gap; 0 means always ready
  bool ready = false;
  double remaining_us = 0.0;  // of the current burst, while ready
  double ready_at = 0.0;      // end of the current gap, while not ready
  double work_us = 0.0;       // in the window
};

enum class GpuMode { kIdle, kRunning, kSwitching };
enum class Event { kEnd, kBurstEnd, kSliceEnd, kSwitchEnd, kJobReady, kArrival };

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("simulate_reference: " + what);
}

}  // namespace

ReferenceResult simulate_reference(const std::vector<TimeSliceJob>& jobs,
                                   const ReferenceConfig& config) {
  const TimeSliceParams& p = config.params;
  check(!jobs.empty(), "no jobs");
  check(p.time_slice_us > 0.0, "time_slice_us must be > 0");
  check(p.switch_cost_us >= 0.0, "switch_cost_us must be >= 0");
  check(p.interference >= 0.0, "interference must be >= 0");
  check(p.launch_gap_us >= 0.0, "launch_gap_us must be >= 0");
  const RequestDriver* driver = config.requests ? &*config.requests : nullptr;
  const int n = static_cast<int>(jobs.size());
  std::vector<EffectiveCycle> cycle(n);
  double util_sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const TimeSliceJob& j = jobs[i];
    check(j.sm_util > 0.0 && j.sm_util <= 1.0, "sm_util must be in (0, 1]");
    check(j.mean_kernel_us > 0.0, "mean_kernel_us must be > 0");
    cycle[i] = effective_cycle(j.sm_util, j.mean_kernel_us, p.launch_gap_us);
    util_sum += cycle[i].sm_util;
  }

  Sampler sampler(config.seed, p.distribution);
  std::vector<JobState> st(n);
  double longest_cycle = 0.0;
  double event_rate = 1.0 / p.time_slice_us;  // events per us, an upper-bound estimate
  for (int i = 0; i < n; ++i) {
    const double slowdown = 1.0 + p.interference * (util_sum - cycle[i].sm_util);
    st[i].kernel_us = jobs[i].mean_kernel_us * slowdown;
    st[i].gap_us = cycle[i].gap_us;
    longest_cycle = std::max(longest_cycle, st[i].kernel_us + st[i].gap_us);
    event_rate += 4.0 / (st[i].kernel_us + st[i].gap_us);
  }
  double window = config.horizon_us;
  if (window <= 0.0) {
    window = std::max(config.min_cycles * longest_cycle, 100.0 * p.time_slice_us);
    window = std::min(window, config.max_events / event_rate);
  }
  const double warmup = std::max(0.1 * window, 10.0 * p.time_slice_us);
  const double end = warmup + window;

  // Random phases so that deterministic bursts do not all start in lockstep.
  for (int i = 0; i < n; ++i) {
    st[i].ready = false;
    st[i].ready_at = sampler.uniform() * (st[i].kernel_us + st[i].gap_us);
  }
  // Job 0 under requests: its arrivals, queue and burst in service (RequestQueue).
  std::optional<RequestQueue> requests;
  if (driver != nullptr) requests.emplace(*driver, config.seed, "simulate_reference");
  double free_at = 0.0;  // earliest start of job 0's next burst
  const double service_slowdown = driver ? st[0].kernel_us / jobs[0].mean_kernel_us : 1.0;
  if (driver != nullptr) st[0].ready_at = kInf;  // ready only when a request waits

  ReferenceResult result;
  GpuMode mode = GpuMode::kIdle;
  int resident = -1;  // context whose state is loaded on the GPU
  int target = -1;    // context being switched in
  double switch_end = 0.0;
  double slice_start = 0.0;
  double slice_end = kInf;  // only meaningful while someone waits
  std::deque<int> waiting;  // ready contexts not on the GPU, first come first served
  double now = 0.0;
  double busy = 0.0, switching = 0.0, idle = 0.0;

  auto start_switch = [&](double t) {
    target = waiting.front();
    waiting.pop_front();
    mode = GpuMode::kSwitching;
    switch_end = t + p.switch_cost_us;
  };
  auto next_boundary = [&](double t) {
    const double k = std::floor((t - slice_start) / p.time_slice_us) + 1.0;
    return slice_start + k * p.time_slice_us;
  };

  while (now < end) {
    // Next event: the GPU's own, then gap ends (ties go to the GPU, then lower job index).
    double t_next = end;
    Event kind = Event::kEnd;
    int who = -1;
    if (mode == GpuMode::kRunning) {
      const double burst_end = now + st[resident].remaining_us;
      if (burst_end < t_next) t_next = burst_end, kind = Event::kBurstEnd;
      if (!waiting.empty() && slice_end < t_next) t_next = slice_end, kind = Event::kSliceEnd;
    } else if (mode == GpuMode::kSwitching && switch_end < t_next) {
      t_next = switch_end, kind = Event::kSwitchEnd;
    }
    for (int i = 0; i < n; ++i) {
      if (!st[i].ready && st[i].ready_at < t_next)
        t_next = st[i].ready_at, kind = Event::kJobReady, who = i;
    }
    if (requests && requests->next_arrival() < t_next) {
      t_next = requests->next_arrival(), kind = Event::kArrival;
    }
    t_next = std::max(t_next, now);

    // Account [now, t_next): only its part inside the window counts.
    const double dt = t_next - now;
    const double counted = std::max(0.0, t_next - std::max(now, warmup));
    if (mode == GpuMode::kRunning) {
      st[resident].remaining_us -= dt;
      st[resident].work_us += counted;
      busy += counted;
    } else if (mode == GpuMode::kSwitching) {
      switching += counted;
    } else {
      idle += counted;
    }
    now = t_next;
    ++result.events;

    switch (kind) {
      case Event::kEnd:
        break;
      case Event::kArrival:
        requests->arrive(now);
        // Idle job 0 (no burst in service, none pending): the request makes it ready.
        if (!st[0].ready && st[0].ready_at == kInf) st[0].ready_at = std::max(now, free_at);
        break;
      case Event::kBurstEnd: {  // the running context's kernel ended
        JobState& j = st[resident];
        if (driver != nullptr && resident == 0) {
          requests->finish_burst(now, warmup, result.request_latencies_us);
          j.ready = false;
          free_at = now + p.launch_gap_us;
          j.ready_at = requests->empty() ? kInf : free_at;
          if (!waiting.empty()) {
            start_switch(now);
          } else {
            mode = GpuMode::kIdle;
          }
          break;
        }
        if (j.gap_us <= 0.0) {
          // Never idle: its next kernel is ready at once, but a kernel end is where the GPU
          // hands over to a waiting context (strict alternation, measured on an H200).
          j.remaining_us = sampler.draw(j.kernel_us);
          if (!waiting.empty()) {
            waiting.push_back(resident);
            start_switch(now);
          }
          break;
        }
        j.ready = false;
        j.ready_at = now + sampler.draw(j.gap_us);
        if (!waiting.empty()) {
          start_switch(now);
        } else {
          mode = GpuMode::kIdle;
        }
        break;
      }
      case Event::kSliceEnd:  // slice expired with others waiting: preempt, keep the remaining
                              // burst
        waiting.push_back(resident);
        start_switch(now);
        break;
      case Event::kSwitchEnd:
        if (now >= warmup) ++result.switches;
        resident = target;
        mode = GpuMode::kRunning;
        slice_start = now;
        slice_end = now + p.time_slice_us;
        break;
      case Event::kJobReady: {
        JobState& j = st[who];
        j.ready = true;
        if (driver != nullptr && who == 0) {
          j.remaining_us = requests->start_burst() * service_slowdown;
        } else {
          j.remaining_us = sampler.draw(j.kernel_us);
        }
        if (mode == GpuMode::kIdle) {
          if (resident == who || resident < 0) {
            resident = who;
            mode = GpuMode::kRunning;
            slice_start = now;
          } else {
            waiting.push_back(who);
            start_switch(now);
          }
        } else {
          if (mode == GpuMode::kRunning && waiting.empty()) slice_end = next_boundary(now);
          waiting.push_back(who);
        }
        break;
      }
    }
  }

  if (driver != nullptr) {
    result.requests_unfinished = requests->unfinished(warmup);
  }
  result.window_us = window;
  result.busy_fraction = busy / window;
  result.switch_fraction = switching / window;
  result.idle_fraction = idle / window;
  result.rates.resize(n);
  result.work_us.resize(n);
  for (int i = 0; i < n; ++i) {
    result.work_us[i] = st[i].work_us;
    // Alone, job i executes its duty cycle (launch gap included) x window of (interference-free)
    // kernel time.
    const double slowdown = st[i].kernel_us / jobs[i].mean_kernel_us;
    result.rates[i] = st[i].work_us / slowdown / (cycle[i].sm_util * window);
  }
  return result;
}

}  // namespace gpumux
