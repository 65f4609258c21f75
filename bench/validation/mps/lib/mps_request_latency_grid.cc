#include "bench/validation/mps/lib/mps_request_latency_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench/validation/mps/lib/mps_block_reference.h"
#include "sim/core/service.h"
#include "sim/core/service_gpu_context.h"
#include "sim/services/service_replica.h"

namespace gpumux {
namespace {

int blocks_of(double sm_share, int sms) {
  return std::max(1, static_cast<int>(std::lround(sm_share * sms)));
}

}  // namespace

std::vector<MpsRequestLatencyCase> mps_request_latency_grid(int stride) {
  std::vector<MpsRequestLatencyCase> grid;
  // fixed lengths, co-runner SM share, its kernel (ms), its duty, service SM share, load,
  // service (ms)
  for_each_grid_point({{0, 1},
                       {0.6, 1.0},
                       {0.5, 20.0},
                       {0.2, 0.6, 1.0},
                       {0.2, 1.0},
                       {0.1, 0.5, 0.9},
                       {0.5, 5.0, 50.0}},
                      stride, [&](const std::vector<double>& p) {
                        MpsRequestLatencyCase c;
                        c.fixed_lengths = p[0] != 0;
                        c.other_sm_share = p[1];
                        c.other_kernel_us = p[2] * 1000.0;
                        c.other_duty = p[3];
                        c.service_sm_share = p[4];
                        c.load = p[5];
                        c.service_us = p[6] * 1000.0;
                        grid.push_back(c);
                      });
  return grid;
}

std::string describe(const MpsRequestLatencyCase& c) {
  char text[220];
  std::snprintf(text, sizeof text,
                "service %.1f ms sm_share %.1f, load %.1f, co-runner duty %.1f kernel %.1f ms "
                "sm_share %.1f (%s)",
                c.service_us / 1000.0, c.service_sm_share, c.load, c.other_duty,
                c.other_kernel_us / 1000.0, c.other_sm_share,
                c.fixed_lengths ? "fixed" : "exponential");
  return text;
}

RequestLatencyComparison compare_mps_request_latency(const MpsRequestLatencyCase& c,
                                                     double requests, std::uint64_t seed,
                                                     int replications) {
  const double rate_per_us = c.load / c.service_us;
  const double window_us = requests / rate_per_us;
  // The reference: every block of the co-runner, job 0 driven by requests.
  MpsReferenceConfig config;
  config.params.interference = 0.0;
  config.params.launch_gap_us = 0.0;
  config.params.allocation = MpsSmAllocation::kBlocks;
  config.params.bursts = c.fixed_lengths ? MpsBursts::kFixed : MpsBursts::kExponential;
  config.horizon_us = window_us;
  config.requests = RequestDriver{rate_per_us, c.service_us, 1, 0.0};
  MpsJob service;
  service.sm_util = std::min(1.0, c.load);
  service.sm_share = c.service_sm_share;
  service.mean_kernel_us = c.service_us;
  MpsJob other;
  other.sm_util = c.other_duty;
  other.sm_share = c.other_sm_share;
  other.mean_kernel_us = c.other_kernel_us;
  const std::vector<MpsJob> jobs = {service, other};

  // The fast side: the request-level replica on the block schedule, as a cluster run drives it.
  const ServiceSpec spec = poisson_requests(rate_per_us, c.service_us);
  BlockContext blocks;
  blocks.sms = c.sms;
  blocks.interference = 0.0;
  blocks.launch_gap_us = 0.0;
  blocks.fixed_lengths = c.fixed_lengths;
  blocks.service_blocks = blocks_of(c.service_sm_share, c.sms);
  blocks.service_cap = c.sms;
  blocks.others = {
      BlockContender{c.other_duty, c.other_kernel_us, blocks_of(c.other_sm_share, c.sms), c.sms}};

  return replicate_request_latency(spec, ServiceGpuContext{nullptr, &blocks}, window_us, seed,
                                   replications, [&](std::uint64_t s) {
                                     config.seed = s;
                                     return simulate_mps_blocks(jobs, config, c.sms);
                                   });
}

}  // namespace gpumux
