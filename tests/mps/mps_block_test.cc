// The block-level MPS physics: the reference simulator (mps_block_reference.h) against the
// behaviour measured on an H200 (docs/gpu-facts.md "Measured here"), and the fast model's block form
// (mps_rates.h, MpsSmAllocation::kBlocks) against the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "bench/validation/mps/lib/mps_block_reference.h"
#include "models/mps/mps_rates.h"

namespace gpumux {
namespace {

constexpr int kSms = 132;

MpsJob block_job(double share, double kernel_us, double duty, double atf = 1.0) {
  MpsJob j;
  j.sm_share = share;
  j.mean_kernel_us = kernel_us;
  j.sm_util = duty;
  j.active_thread_fraction = atf;
  return j;
}

MpsReferenceConfig fixed(double launch_gap_us = 9.0) {
  MpsReferenceConfig c;
  c.params.bursts = MpsBursts::kFixed;
  c.params.launch_gap_us = launch_gap_us;
  c.min_cycles = 400;
  return c;
}

MpsParams blocks(MpsBursts bursts = MpsBursts::kFixed) {
  MpsParams p;
  p.allocation = MpsSmAllocation::kBlocks;
  p.bursts = bursts;
  p.launch_gap_us = 9.0;
  return p;
}

TEST(MpsBlocks, FullGpuKernelsTakeTurns) {
  // Two busy full-GPU kernels: one waits for the other's blocks (measured 0.50 at 2 ms).
  const MpsReferenceResult r =
      simulate_mps_blocks({block_job(1, 2000, 1), block_job(1, 2000, 1)}, fixed(), kSms);
  EXPECT_NEAR(r.rates[0], 2009.0 / 4000.0, 0.01);
  EXPECT_NEAR(r.rates[1], r.rates[0], 0.01);
  // Quarter-GPU kernels fit side by side: no one waits.
  const MpsReferenceResult q =
      simulate_mps_blocks({block_job(0.25, 200, 1), block_job(0.25, 200, 1)}, fixed(), kSms);
  EXPECT_NEAR(q.rates[0], 1.0, 0.01);
}

TEST(MpsBlocks, BlocksAreNotPreempted) {
  // Beside a busy kernel holding every SM for 2 ms, a busy 20 us one runs only in the other's
  // launch gaps, once per 2 ms (measured 0.015-0.025), and the big one keeps ~1.00. Sharing SMs
  // in proportion would give the small one about half the GPU.
  const MpsReferenceResult r =
      simulate_mps_blocks({block_job(1, 2000, 1), block_job(1, 20, 1)}, fixed(), kSms);
  EXPECT_NEAR(r.rates[1], 29.0 / 2020.0, 0.004);
  EXPECT_GT(r.rates[0], 0.98);
  const MpsRates fluid =
      mps_rates(std::vector<MpsJob>{block_job(1, 2000, 1), block_job(1, 20, 1)}, MpsParams{});
  EXPECT_GT(fluid.rates[1], 0.3);
}

TEST(MpsBlocks, ThreadCapsRunKernelsInWaves) {
  // A full-GPU kernel capped at half the SMs runs two waves even alone (rate 0.5 against the
  // uncapped GPU); two such clients fit side by side and keep their capped speed (measured
  // 0.96-0.99).
  const MpsReferenceResult alone =
      simulate_mps_blocks({block_job(1, 200, 1, 0.5)}, fixed(0.0), kSms);
  EXPECT_NEAR(alone.rates[0], 0.5, 0.01);
  const MpsReferenceResult pair =
      simulate_mps_blocks({block_job(1, 200, 1, 0.5), block_job(1, 200, 1, 0.5)}, fixed(0.0), kSms);
  EXPECT_NEAR(pair.rates[0], 0.5, 0.01);
}

TEST(MpsBlocks, AKernelThatDoesNotFitRunsASecondWave) {
  // A quarter-GPU kernel holds 33 SMs: a full-GPU kernel launched beside it starts 99 blocks
  // and runs the other 33 in a second wave.
  MpsReferenceConfig c = fixed(0.0);
  c.horizon_us = 0.0;
  const MpsReferenceResult r =
      simulate_mps_blocks({block_job(0.25, 1000, 1), block_job(1, 1000, 1)}, c, kSms);
  EXPECT_LT(r.rates[1], 0.7);
  EXPECT_GT(r.busy_fraction, 0.99);
}

TEST(MpsBlocks, FastBlockFormFollowsTheMeasuredCases) {
  const MpsParams p = blocks();
  auto rates = [&](std::vector<MpsJob> jobs) { return mps_rates(jobs, p).rates; };
  EXPECT_NEAR(rates({block_job(1, 2000, 0.9955), block_job(1, 2000, 0.9955)})[0], 0.504, 0.01);
  EXPECT_NEAR(rates({block_job(1, 200, 0.957), block_job(1, 200, 0.957)})[0], 0.5226, 0.01);
  EXPECT_NEAR(rates({block_job(1, 20, 0.678), block_job(1, 20, 0.678)})[0], 0.718, 0.03);
  EXPECT_NEAR(rates({block_job(1, 2000, 0.4985), block_job(1, 2000, 0.4985)})[0], 0.998, 0.01);
  EXPECT_NEAR(rates({block_job(0.25, 20, 0.678), block_job(0.25, 20, 0.678)})[0], 1.0, 1e-9);
  const std::vector<double> mixed = rates({block_job(1, 2000, 1), block_job(1, 20, 1)});
  EXPECT_NEAR(mixed[1], 29.0 / 2020.0, 0.004);
  EXPECT_GT(mixed[0], 0.98);
}

// Random pairs and triples of the probe's grid (kernels 20/200/2000 us, duty 0.25/0.5/1, SM
// shares 1/4..1): the fast block form against the block-level reference. Measured on this grid
// (bench/validation/mps/RESULTS.md): fixed lengths MAE 0.038, exponential 0.059.
TEST(MpsBlocks, FastBlockFormMatchesTheReferenceOnAGrid) {
  std::mt19937_64 rng(11);
  const double kernels[] = {20, 200, 2000}, duties[] = {0.25, 0.5, 1.0},
               shares[] = {0.25, 0.5, 0.75, 1.0};
  for (MpsBursts bursts : {MpsBursts::kFixed, MpsBursts::kExponential}) {
    double sum = 0.0;
    int count = 0;
    for (int c = 0; c < 40; ++c) {
      std::vector<MpsJob> jobs;
      for (int i = 0; i < 2 + c % 2; ++i) {
        const double k = kernels[rng() % 3], d = duties[rng() % 3];
        const double gap = std::max(9.0, k * (1 - d) / d);
        jobs.push_back(block_job(shares[rng() % 4], k, k / (k + gap)));
      }
      MpsReferenceConfig ref = fixed();
      ref.params.bursts = bursts;
      ref.min_cycles = bursts == MpsBursts::kFixed ? 400 : 3000;
      ref.seed = static_cast<std::uint64_t>(c + 1);
      const MpsReferenceResult r = simulate_mps_blocks(jobs, ref, kSms);
      const MpsRates f = mps_rates(jobs, blocks(bursts));
      for (std::size_t i = 0; i < jobs.size(); ++i) {
        sum += std::abs(f.rates[i] - r.rates[i]);
        ++count;
      }
    }
    EXPECT_LT(sum / count, bursts == MpsBursts::kFixed ? 0.05 : 0.075)
        << (bursts == MpsBursts::kFixed ? "fixed" : "exponential");
  }
}

TEST(MpsBlocks, RejectsBadInput) {
  EXPECT_THROW(simulate_mps_blocks({}, fixed(), kSms), std::invalid_argument);
  EXPECT_THROW(simulate_mps_blocks({block_job(1, 20, 1)}, fixed(), 0), std::invalid_argument);
  EXPECT_THROW(simulate_mps_blocks({block_job(1, 0, 1)}, fixed(), kSms), std::invalid_argument);
}

}  // namespace
}  // namespace gpumux
