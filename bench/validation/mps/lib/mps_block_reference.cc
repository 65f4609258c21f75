#include "bench/validation/mps/lib/mps_block_reference.h"

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

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("simulate_mps_blocks: " + what);
}

struct BlockGroup {
  double end = 0.0;
  int blocks = 0;
};

struct Client {
  double kernel_us = 0.0;  // mean kernel length alone (one wave)
  double gap_us = 0.0;     // mean CPU gap, launch gap included
  double duty = 1.0;       // alone on an uncapped GPU, with that gap
  int blocks = 1;          // per kernel
  int cap = 1;             // SMs it may hold at once
  bool launched = false;   // a kernel is queued or running
  int waiting = 0;         // blocks of the current kernel not started
  int held = 0;            // SMs it holds now
  double block_us = 0.0;   // this kernel's block length alone
  double ready_at = 0.0;   // next launch, while not launched
  std::vector<BlockGroup> groups;
  double work = 0.0;      // in the window: kernel work done, alone-time us
  double run_time = 0.0;  // in the window: time with blocks on SMs
};

}  // namespace

MpsReferenceResult simulate_mps_blocks(const std::vector<MpsJob>& jobs,
                                       const MpsReferenceConfig& config, int sms) {
  const MpsParams& p = config.params;
  check(!jobs.empty(), "no jobs");
  check(sms >= 1, "sms must be >= 1");
  check(p.interference >= 0.0, "interference must be >= 0");
  check(p.launch_gap_us >= 0.0, "launch_gap_us must be >= 0");
  const RequestDriver* driver = config.requests ? &*config.requests : nullptr;
  const int n = static_cast<int>(jobs.size());
  std::mt19937_64 rng(config.seed);
  auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  auto draw = [&](double mean) {
    if (mean <= 0.0) return 0.0;
    if (p.bursts == MpsBursts::kFixed) return mean;
    return -mean * std::log1p(-uniform());
  };

  std::vector<Client> c(static_cast<std::size_t>(n));
  double longest_cycle = 0.0, event_rate = 1e-9;
  for (int i = 0; i < n; ++i) {
    const MpsJob& j = jobs[static_cast<std::size_t>(i)];
    check(j.sm_util > 0.0 && j.sm_util <= 1.0, "sm_util must be in (0, 1]");
    check(j.sm_share > 0.0 && j.sm_share <= 1.0, "sm_share must be in (0, 1]");
    check(j.active_thread_fraction > 0.0 && j.active_thread_fraction <= 1.0,
          "active_thread_fraction must be in (0, 1]");
    check(j.mean_kernel_us > 0.0, "mean_kernel_us must be > 0");
    Client& k = c[static_cast<std::size_t>(i)];
    k.kernel_us = j.mean_kernel_us;
    k.gap_us = std::max(p.launch_gap_us, j.mean_kernel_us * (1.0 - j.sm_util) / j.sm_util);
    k.duty = k.kernel_us / (k.kernel_us + k.gap_us);
    k.blocks = std::max(1, static_cast<int>(std::lround(j.sm_share * sms)));
    k.cap = std::max(1, static_cast<int>(std::floor(j.active_thread_fraction * sms + 1e-9)));
    const double waves = std::ceil(static_cast<double>(k.blocks) / std::min(k.blocks, k.cap));
    const double cycle = waves * k.kernel_us + k.gap_us;
    longest_cycle = std::max(longest_cycle, cycle);
    event_rate += (2.0 + waves) / cycle;
    k.ready_at = uniform() * (k.kernel_us + k.gap_us);  // random phases
  }
  std::deque<int> queue;  // launched kernels with blocks not started, in launch order
  // Job 0 under requests: its arrivals, queue and burst in service (RequestQueue).
  std::optional<RequestQueue> requests;
  if (driver != nullptr) requests.emplace(*driver, config.seed, "simulate_mps_blocks");
  double free_at = 0.0;                         // earliest launch of job 0's next burst
  if (driver != nullptr) c[0].ready_at = kInf;  // launches only when a request waits
  auto launch = [&](int who) {
    Client& k = c[static_cast<std::size_t>(who)];
    k.launched = true;
    k.waiting = k.blocks;
    if (driver != nullptr && who == 0) {
      k.block_us = requests->start_burst();
    } else {
      k.block_us = draw(k.kernel_us);
    }
    queue.push_back(who);
  };
  double window = config.horizon_us;
  if (window <= 0.0) {
    window = std::min(config.min_cycles * longest_cycle, config.max_events / event_rate);
  }
  const double warmup = 0.1 * window;
  const double end = warmup + window;

  int free_sms = sms;
  MpsReferenceResult result;
  double now = 0.0, busy = 0.0, sm_time = 0.0;

  auto dispatch = [&] {
    for (auto it = queue.begin(); it != queue.end() && free_sms > 0;) {
      Client& k = c[static_cast<std::size_t>(*it)];
      const int take = std::min({k.waiting, free_sms, k.cap - k.held});
      if (take > 0) {
        const double others = static_cast<double>(sms - free_sms - k.held) / sms;
        k.groups.push_back({now + k.block_us * (1.0 + p.interference * others), take});
        k.waiting -= take;
        k.held += take;
        free_sms -= take;
      }
      it = k.waiting == 0 ? queue.erase(it) : it + 1;
    }
  };

  while (now < end) {
    double t_next = end;
    int who = -1;
    std::size_t group = 0;
    for (int i = 0; i < n; ++i) {
      const Client& k = c[static_cast<std::size_t>(i)];
      if (!k.launched && k.ready_at < t_next) t_next = k.ready_at, who = i, group = SIZE_MAX;
      for (std::size_t g = 0; g < k.groups.size(); ++g) {
        if (k.groups[g].end < t_next) t_next = k.groups[g].end, who = i, group = g;
      }
    }
    bool arrival = false;
    if (requests && requests->next_arrival() < t_next) {
      t_next = requests->next_arrival(), arrival = true, who = -1;
    }
    t_next = std::max(t_next, now);
    const double counted = std::max(0.0, t_next - std::max(now, warmup));
    if (free_sms < sms) busy += counted;
    sm_time += counted * (sms - free_sms) / sms;
    for (Client& k : c) {
      if (k.held > 0) k.run_time += counted;
    }
    now = t_next;
    ++result.events;
    if (arrival) {
      requests->arrive(now);
      // Idle job 0 (no burst in service or pending): the request makes it launch.
      if (!c[0].launched && c[0].ready_at == kInf) c[0].ready_at = std::max(now, free_at);
      continue;
    }
    if (who < 0) break;
    Client& k = c[static_cast<std::size_t>(who)];
    if (group == SIZE_MAX) {  // gap over: launch
      launch(who);
    } else {  // a group of blocks ended
      const BlockGroup done = k.groups[group];
      k.groups.erase(k.groups.begin() + static_cast<std::ptrdiff_t>(group));
      k.held -= done.blocks;
      free_sms += done.blocks;
      if (now > warmup) k.work += k.block_us * done.blocks / k.blocks;
      if (k.waiting == 0 && k.held == 0 && driver != nullptr && who == 0) {
        requests->finish_burst(now, warmup, result.request_latencies_us);
        k.launched = false;
        free_at = now + p.launch_gap_us;
        k.ready_at = requests->empty() ? kInf : free_at;
      } else if (k.waiting == 0 && k.held == 0) {  // kernel complete
        k.launched = false;
        const double gap = k.gap_us > 0.0 ? draw(k.gap_us) : 0.0;
        k.ready_at = now + gap;
        if (gap <= 0.0) launch(who);
      }
    }
    dispatch();
  }

  if (driver != nullptr) result.requests_unfinished = requests->unfinished(warmup);
  result.window_us = window;
  result.busy_fraction = busy / window;
  result.sm_fraction = sm_time / window;
  result.idle_fraction = 1.0 - result.busy_fraction;
  result.rates.resize(static_cast<std::size_t>(n));
  result.running_fraction.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const Client& k = c[static_cast<std::size_t>(i)];
    result.rates[static_cast<std::size_t>(i)] = k.work / (k.duty * window);
    result.running_fraction[static_cast<std::size_t>(i)] = k.run_time / window;
  }
  return result;
}

}  // namespace gpumux
