// Speed of the fast time-slicing model (cluster runs call it on every change of a GPU's job
// set) and, for contrast, of the kernel-level reference.
#include <benchmark/benchmark.h>

#include "bench/validation/timeslice/lib/kernel_reference.h"
#include "models/timeslice/timeslice_rates.h"

namespace {

std::vector<gpumux::TimeSliceJob> mix(int n) {
  std::vector<gpumux::TimeSliceJob> jobs;
  for (int i = 0; i < n; ++i) jobs.push_back({0.1 + 0.8 * i / 8.0, 50.0 * (1 + i)});
  return jobs;
}

void BM_TimeSliceRates(benchmark::State& state) {
  const auto jobs = mix(static_cast<int>(state.range(0)));
  const gpumux::TimeSliceParams params;
  for (auto _ : state) benchmark::DoNotOptimize(gpumux::timeslice_rates(jobs, params));
}
BENCHMARK(BM_TimeSliceRates)->DenseRange(1, 8);

void BM_KernelReference(benchmark::State& state) {
  const auto jobs = mix(static_cast<int>(state.range(0)));
  gpumux::ReferenceConfig config;
  config.max_events = 1e5;
  for (auto _ : state) benchmark::DoNotOptimize(gpumux::simulate_reference(jobs, config));
}
BENCHMARK(BM_KernelReference)->Arg(2)->Arg(8)->Unit(benchmark::kMillisecond);

}  // namespace
