// One GPU's rate computation (SharingModel::compute_rates) under each sharing model, for 1 to 8
// residents (mig: up to its layout's 4 instances). The engine calls it for every GPU whose
// residents change, so its cost times the changes per job bounds a sharing run's speed.
// BM_Admits times the admission question placement asks of an occupied GPU.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "bench/micro/bench_support.h"

namespace gpumux {
namespace {

// Residents as the engine shows them: specs, memory in use, and the slot each was given.
struct GpuFixture {
  std::vector<JobSpec> specs;
  std::vector<const JobSpec*> residents;
  std::vector<MemoryMiB> memory;
  std::vector<int> slots;
  std::vector<std::uint8_t> asked;

  GpuFixture(const SharingModel& model, int n) {
    bench::JobMaker maker(42);
    specs.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      JobSpec j = maker.next(Time::zero());
      j.gpus = 1;
      j.memory = MemoryMiB(4096);  // fits every instance of the mig layout
      specs.push_back(j);
      // The slot the model gives the job on the GPU holding the earlier ones.
      slots.push_back(choose_slot(model, view(), specs.back()));
      residents.push_back(&specs.back());
      memory.push_back(j.memory);
      asked.push_back(0);
    }
  }
  GpuView view() const {
    MemoryMiB used;
    for (MemoryMiB m : memory) used += m;
    return GpuView{bench::bench_device(), residents, used, memory, 0, slots, asked};
  }
};

// The same GPU again and again: timeslice and mps answer from their rate memo
// (models/rate_memo.h) after the first call, as for the GPUs of a gang refreshed together.
void BM_ComputeRates(benchmark::State& state, const char* model_name, const char* params) {
  const auto model = bench::make_model(model_name, params);
  const GpuFixture gpu(*model, static_cast<int>(state.range(0)));
  const GpuView view = gpu.view();
  std::vector<double> rates(gpu.residents.size());
  GpuLoad load;
  for (auto _ : state) {
    model->compute_rates(view, rates, load);
    benchmark::DoNotOptimize(rates.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK_CAPTURE(BM_ComputeRates, timeslice, "timeslice", "{}")->DenseRange(1, 8);
BENCHMARK_CAPTURE(BM_ComputeRates, mps, "mps", "{}")->DenseRange(1, 8);
BENCHMARK_CAPTURE(BM_ComputeRates, mig, "mig", bench::kMigParams)->DenseRange(1, 4);

// A GPU never seen before on every call: the first resident's sm_util moves by one ulp per
// call, so the memo never answers and this times the rate computation itself.
void BM_ComputeRatesFresh(benchmark::State& state, const char* model_name, const char* params) {
  const auto model = bench::make_model(model_name, params);
  GpuFixture gpu(*model, static_cast<int>(state.range(0)));
  const GpuView view = gpu.view();
  std::vector<double> rates(gpu.residents.size());
  GpuLoad load;
  const double base = gpu.specs.front().sm_util;
  for (auto _ : state) {
    double& u = gpu.specs.front().sm_util;
    u = std::nextafter(u, 1.0);
    if (u >= 1.0) u = base;
    model->compute_rates(view, rates, load);
    benchmark::DoNotOptimize(rates.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK_CAPTURE(BM_ComputeRatesFresh, timeslice, "timeslice", "{}")->DenseRange(2, 8, 3);
BENCHMARK_CAPTURE(BM_ComputeRatesFresh, mps, "mps", "{}")->DenseRange(2, 8, 3);

void BM_Admits(benchmark::State& state, const char* model_name, const char* params) {
  const auto model = bench::make_model(model_name, params);
  const GpuFixture gpu(*model, static_cast<int>(state.range(0)));
  const GpuView view = gpu.view();
  JobSpec candidate = gpu.specs.front();
  candidate.id = "candidate";
  for (auto _ : state) benchmark::DoNotOptimize(model->admits(view, candidate));
}
BENCHMARK_CAPTURE(BM_Admits, timeslice, "timeslice", "{}")->Arg(1)->Arg(4)->Arg(7);
BENCHMARK_CAPTURE(BM_Admits, mps, "mps", "{}")->Arg(1)->Arg(4)->Arg(7);
BENCHMARK_CAPTURE(BM_Admits, mig, "mig", bench::kMigParams)->Arg(1)->Arg(3);

}  // namespace
}  // namespace gpumux
