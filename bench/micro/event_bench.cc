// The event queue and the engine loop in the classic "hold model" of event-set benchmarks: a
// fixed number of pending events; each step pops the earliest and pushes one at a random later
// time. Target (issue "Targets"): >= 10 million events/s with 10^4 pending events.
//
// - BM_EventQueueHold: the queue alone (sim/engine/event_queue.h), pending events as the argument.
// The
//   increments are drawn up front so that the generator's cost is not counted.
// - BM_EngineHold: the whole engine (arrival, fifo pass, placement, start, completion, rate
//   refresh) with about 9,000 single-GPU jobs running on 10,000 exclusive GPUs at any time, so
//   about 10^4 completion events pend. Counts the engine's own events.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "bench/micro/bench_support.h"
#include "sim/engine/engine.h"
#include "sim/engine/event_queue.h"
#include "sim/placement/registry.h"

namespace gpumux {
namespace {

void BM_EventQueueHold(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  constexpr std::size_t kIncrements = 1 << 16;  // a power of two: cycled with a mask
  std::vector<std::int64_t> increments(kIncrements);
  std::mt19937_64 rng(2026);
  std::exponential_distribution<double> wait(1.0 / 1e6);  // mean 1 s in microseconds
  for (auto& inc : increments) inc = 1 + static_cast<std::int64_t>(wait(rng));
  EventQueue queue;
  queue.reserve(pending + 1);
  for (std::size_t i = 0; i < pending; ++i) {
    queue.push(Time::from_us(increments[i % kIncrements]), EventKind::kCompletion,
               static_cast<std::uint32_t>(i));
  }
  std::size_t k = pending;
  for (auto _ : state) {
    const Event e = queue.pop();
    queue.push(e.time + Time::from_us(increments[k++ & (kIncrements - 1)]), e.kind, e.target,
               e.version);
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventQueueHold)->Arg(1000)->Arg(10000)->Arg(100000);

void BM_EngineHold(benchmark::State& state) {
  const auto jobs = static_cast<std::uint64_t>(state.range(0));
  constexpr int kGpus = 10000;
  std::uint64_t events = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Cluster cluster = bench::make_cluster(kGpus);
    const auto model = bench::make_model("exclusive");
    Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
    // 0.9 x 10,000 GPUs busy: 9,000 one-hour jobs arrive per hour.
    bench::GeneratedSource source(jobs, 9000.0, bench::JobMaker(1, 3600.0, /*max_gpus=*/1));
    Engine engine(cluster, *model, scheduler, source);
    state.ResumeTiming();
    events += engine.run().events;
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EngineHold)->Arg(20000)->Arg(200000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpumux
