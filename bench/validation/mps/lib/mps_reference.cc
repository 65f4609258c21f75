#include "bench/validation/mps/lib/mps_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

namespace gpumux {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Portable samplers on top of mt19937_64 (whose output the standard fixes bit for bit).
class Sampler {
 public:
  Sampler(std::uint64_t seed, MpsBursts bursts) : rng_(seed), bursts_(bursts) {}
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  double draw(double mean) {
    if (mean <= 0.0) return 0.0;
    if (bursts_ == MpsBursts::kFixed) return mean;
    return -mean * std::log1p(-uniform());
  }

 private:
  std::mt19937_64 rng_;
  MpsBursts bursts_;
};

struct JobState {
  double kernel_us = 0.0;  // mean burst work (alone-time microseconds)
  double gap_us = 0.0;     // mean CPU gap; 0: never idle
  double demand = 0.0;
  bool running = false;
  double remaining = 0.0;  // work left in the current burst, while running
  double ready_at = 0.0;   // end of the current gap, while not running
  double speed = 0.0;      // while running
  double grant = 0.0;      // SM share granted, while running
  double work = 0.0;       // in the window
  double run_time = 0.0;   // in the window
};

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("simulate_mps_reference: " + what);
}

}  // namespace

MpsReferenceResult simulate_mps_reference(const std::vector<MpsJob>& jobs,
                                          const MpsReferenceConfig& config) {
  if (config.requests) {
    throw std::invalid_argument(
        "simulate_mps_reference: requests are simulated by simulate_mps_blocks only");
  }
  const MpsParams& p = config.params;
  check(!jobs.empty(), "no jobs");
  check(p.interference >= 0.0, "interference must be >= 0");
  const int n = static_cast<int>(jobs.size());
  for (const MpsJob& j : jobs) {
    check(j.sm_util > 0.0 && j.sm_util <= 1.0, "sm_util must be in (0, 1]");
    check(j.sm_share > 0.0 && j.sm_share <= 1.0, "sm_share must be in (0, 1]");
    check(j.active_thread_fraction > 0.0 && j.active_thread_fraction <= 1.0,
          "active_thread_fraction must be in (0, 1]");
    check(j.mean_kernel_us > 0.0, "mean_kernel_us must be > 0");
  }

  Sampler sampler(config.seed, p.bursts);
  std::vector<JobState> st(n);
  double longest_cycle = 0.0;
  double event_rate = 1e-9;  // events per us, an estimate
  for (int i = 0; i < n; ++i) {
    st[i].kernel_us = jobs[i].mean_kernel_us;
    st[i].gap_us = jobs[i].mean_kernel_us * (1.0 - jobs[i].sm_util) / jobs[i].sm_util;
    st[i].demand = jobs[i].demand();
    const double cycle = st[i].kernel_us / jobs[i].cap_speed() + st[i].gap_us;
    longest_cycle = std::max(longest_cycle, cycle);
    if (st[i].gap_us > 0.0) event_rate += 2.0 / cycle;
  }
  double window = config.horizon_us;
  if (window <= 0.0) {
    window = config.min_cycles * longest_cycle;
    window = std::min(window, config.max_events / event_rate);
  }
  const double warmup = 0.1 * window;
  const double end = warmup + window;

  // Random phases: every job starts in a gap of random length.
  for (int i = 0; i < n; ++i) {
    st[i].ready_at = sampler.uniform() * (st[i].kernel_us + st[i].gap_us);
  }

  MpsReferenceResult result;
  double now = 0.0, busy = 0.0, sm = 0.0;
  while (now < end) {
    // Speeds of the running kernels: proportional SM sharing, then contention.
    double demand = 0.0;
    for (const JobState& j : st) {
      if (j.running) demand += j.demand;
    }
    const double scale = demand > 1.0 ? 1.0 / demand : 1.0;
    const double granted = demand * scale;
    double t_next = end;
    int who = -1;
    for (int i = 0; i < n; ++i) {
      JobState& j = st[i];
      if (j.running) {
        j.grant = j.demand * scale;
        j.speed = (j.grant / jobs[i].sm_share) / (1.0 + p.interference * (granted - j.grant));
        const double t = now + j.remaining / j.speed;
        if (t < t_next) t_next = t, who = i;
      } else if (j.ready_at < t_next) {
        t_next = j.ready_at, who = i;
      }
    }
    t_next = std::max(t_next, now);

    const double dt = t_next - now;
    const double counted = std::max(0.0, t_next - std::max(now, warmup));
    for (JobState& j : st) {
      if (!j.running) continue;
      j.remaining -= j.speed * dt;
      j.work += j.speed * counted;
      j.run_time += counted;
    }
    if (demand > 0.0) busy += counted;
    sm += granted * counted;
    now = t_next;
    ++result.events;
    if (who < 0) break;  // end of the window

    JobState& j = st[who];
    if (j.running) {  // burst ended: CPU gap
      j.running = false;
      j.ready_at = now + sampler.draw(j.gap_us);
    } else {  // gap ended: next burst
      j.running = true;
      j.remaining = j.gap_us > 0.0 ? sampler.draw(j.kernel_us) : kInf;
    }
  }

  result.window_us = window;
  result.busy_fraction = busy / window;
  result.sm_fraction = sm / window;
  result.idle_fraction = 1.0 - result.busy_fraction;
  result.rates.resize(n);
  result.running_fraction.resize(n);
  for (int i = 0; i < n; ++i) {
    // Alone on an uncapped GPU, job i does sm_util * window of kernel work.
    result.rates[i] = st[i].work / (jobs[i].sm_util * window);
    result.running_fraction[i] = st[i].run_time / window;
  }
  return result;
}

}  // namespace gpumux
