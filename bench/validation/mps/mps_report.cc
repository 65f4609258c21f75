// Prints the figures recorded in bench/validation/mps/RESULTS.md: the fast MPS rate model's error against
// the concurrent-kernel reference on the validation grid (alpha 0 and a nonzero value), the
// reference's own seed-to-seed noise, and the Gavel V100 pair comparison.
//   mps_report [cases] [seed] [gavel json]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "models/mps/gavel_compare.h"
#include "models/mps/mps_rates.h"
#include "bench/validation/mps/lib/mps_validation.h"

int main(int argc, char** argv) {
  using namespace gpumux;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const int cases = argc > 1 ? std::atoi(argv[1]) : 150;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2026;
  const std::string gavel =
      argc > 3 ? argv[3]
               : std::string(GPUMUX_SOURCE_DIR) +
                     "/../shared/data/colocation/gavel_simulation_throughputs.json";
  MpsReferenceConfig reference;
  reference.min_cycles = 20000.0;
  reference.max_events = 1e7;
  for (double alpha : {0.0, 0.5}) {
    for (MpsBursts b : {MpsBursts::kExponential, MpsBursts::kFixed}) {
      const auto grid = make_mps_grid(cases, seed, alpha, b);
      const MpsGridError e = compare_mps_on_grid(grid, reference);
      std::printf(
          "alpha %.1f, %s bursts, %d cases, %d rates: max |rate error| %.4f, mean %.4f, "
          "max |busy error| %.4f, max |sm error| %.4f\n",
          alpha, b == MpsBursts::kFixed ? "fixed" : "exponential", cases, e.rates_compared,
          e.max_abs_rate_error, e.mean_abs_rate_error, e.max_abs_busy_error, e.max_abs_sm_error);
      if (e.worst_case >= 0) {
        std::printf("  worst: case %d job %d, reference %.4f vs fast %.4f; %s\n", e.worst_case,
                    e.worst_job, e.worst_reference, e.worst_fast,
                    describe(grid[e.worst_case]).c_str());
      }
      if (b == MpsBursts::kFixed) continue;
      double noise = 0.0;
      for (std::size_t c = 0; c < grid.size() && c < 60; ++c) {
        MpsReferenceConfig x = reference, y = reference;
        x.params = y.params = grid[c].params;
        x.seed += c;
        y.seed += c + 1000003;
        const auto rx = simulate_mps_reference(grid[c].jobs, x);
        const auto ry = simulate_mps_reference(grid[c].jobs, y);
        for (std::size_t i = 0; i < rx.rates.size(); ++i) {
          noise = std::max(noise, std::abs(rx.rates[i] - ry.rates[i]));
        }
      }
      std::printf("  reference seed-to-seed max |rate difference| (first 60 cases): %.4f\n", noise);
    }
  }

  // Speed of the fast model per call (allocation-free form).
  for (int n : {1, 2, 4, 8, 16, 32}) {
    std::vector<MpsJob> jobs;
    for (int i = 0; i < n; ++i) {
      jobs.push_back({0.3 + 0.05 * (i % 10), 0.4 + 0.05 * (i % 7), 1.0, 500.0});
    }
    std::vector<double> rates(n);
    MpsWorkspace ws;
    const int reps = n <= 8 ? 2000 : 50;
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) mps_rates(jobs, MpsParams{0.3}, rates, ws);
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::printf("fast model, %2d jobs: %.2f us per call\n", n, us / reps);
  }

  const GavelData data = load_gavel(gavel);
  std::printf("\nGavel: %zu job types (scale 1), %zu V100 job speeds, %d unrunnable skipped\n",
              data.types.size(), data.v100_pairs.size(), data.skipped_unrunnable);
  GavelMapping mapping;
  const std::vector<MpsJob> mapped = map_gavel_types(data, mapping);
  const GavelComparison g = compare_gavel(data, mapping);
  std::printf("mapping: S = %.2f (largest K80->V100 solo speedup), sm_share 1, alpha 0\n",
              g.gpu_speedup);
  for (std::size_t i = 0; i < data.types.size(); ++i) {
    std::printf("  %-34s speedup %5.2f -> sm_util %.3f\n", data.types[i].name.c_str(),
                data.types[i].v100 / data.types[i].k80, mapped[i].sm_util);
  }
  std::printf("MPS model: MAE %.4f, bias %+.4f over %d speeds; baseline 'no slowdown' MAE %.4f\n",
              g.mae, g.bias, g.speeds, g.mae_none);
  // Sensitivity (not the reported model): other uniform assumptions.
  for (double util : {1.0, 0.5}) {
    double abs_sum = 0.0, sum = 0.0;
    const MpsJob j{util, 1.0, 1.0, 1000.0};
    const MpsJob pair[2] = {j, j};
    const double rate = mps_rates(pair, MpsParams{}).rates[0];
    for (const GavelPairSpeed& p : data.v100_pairs) {
      abs_sum += std::abs(rate - p.measured);
      sum += rate - p.measured;
    }
    std::printf(
        "  sensitivity: every type sm_util %.1f, sm_share 1 -> %.4f each: MAE %.4f, "
        "bias %+.4f\n",
        util, rate, abs_sum / data.v100_pairs.size(), sum / data.v100_pairs.size());
  }
  // Sensitivity to the interference term (NOT the reported model: alpha would have to be fitted
  // to these very pairs; shown to say how far contention alone could go).
  for (double alpha : {0.5, 1.0, 2.0, 5.0, 10.0, 20.0}) {
    GavelMapping m = mapping;
    m.params.interference = alpha;
    const GavelComparison s = compare_gavel(data, m);
    std::printf("  sensitivity: same mapping, interference %.1f: MAE %.4f, bias %+.4f\n", alpha,
                s.mae, s.bias);
  }
  // Pairs whose two normalized throughputs sum below 1: slower together than taking turns,
  // which no SM-sharing model without interference produces.
  int pairs = 0, below_one = 0;
  for (const GavelPairSpeed& p : data.v100_pairs) {
    if (p.job > p.partner) continue;
    for (const GavelPairSpeed& q : data.v100_pairs) {
      if (q.job == p.partner && q.partner == p.job) {
        ++pairs;
        if (p.measured + (p.job == p.partner ? p.measured : q.measured) < 1.0) ++below_one;
        break;
      }
    }
  }
  std::printf("  unordered pairs %d, of which %d sum below 1\n", pairs, below_one);
  double measured_mean = 0.0;
  for (const GavelPairSpeed& p : data.v100_pairs) measured_mean += p.measured;
  std::printf("  measured mean normalized throughput %.4f\n",
              measured_mean / data.v100_pairs.size());
  return 0;
}
