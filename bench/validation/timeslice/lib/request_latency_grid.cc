#include "bench/validation/timeslice/lib/request_latency_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench/validation/timeslice/lib/kernel_reference.h"
#include "sim/core/service.h"
#include "sim/core/service_gpu_context.h"
#include "sim/services/service_replica.h"

namespace gpumux {

std::vector<RequestLatencyCase> request_latency_grid(int stride) {
  std::vector<RequestLatencyCase> grid;
  // fixed lengths, slice (ms), co-runner kernel (ms), its duty, load, service (ms)
  for_each_grid_point(
      {{0, 1}, {1.0, 10.0}, {0.5, 20.0}, {0.2, 0.6, 1.0}, {0.1, 0.5, 0.9}, {0.5, 2.0, 10.0, 50.0}},
      stride, [&](const std::vector<double>& p) {
        RequestLatencyCase c;
        c.fixed_lengths = p[0] != 0;
        c.slice_us = p[1] * 1000.0;
        c.other_kernel_us = p[2] * 1000.0;
        c.other_duty = p[3];
        c.load = p[4];
        c.service_us = p[5] * 1000.0;
        grid.push_back(c);
      });
  return grid;
}

std::string describe(const RequestLatencyCase& c) {
  char text[200];
  std::snprintf(text, sizeof text,
                "service %.1f ms, load %.1f, co-runner duty %.1f kernel %.1f ms (%s), slice %.0f "
                "ms, switch %.0f us",
                c.service_us / 1000.0, c.load, c.other_duty, c.other_kernel_us / 1000.0,
                c.fixed_lengths ? "fixed" : "exponential", c.slice_us / 1000.0, c.switch_us);
  return text;
}

RequestLatencyComparison compare_request_latency(const RequestLatencyCase& c, double requests,
                                                 std::uint64_t seed, int replications) {
  const double rate_per_us = c.load / c.service_us;
  const double window_us = requests / rate_per_us;
  // The reference: every kernel of the co-runner, job 0 driven by requests.
  ReferenceConfig config;
  config.params.time_slice_us = c.slice_us;
  config.params.switch_cost_us = c.switch_us;
  config.params.interference = 0.0;
  config.params.launch_gap_us = 0.0;
  config.params.distribution =
      c.fixed_lengths ? BurstDistribution::kFixed : BurstDistribution::kExponential;
  config.horizon_us = window_us;
  config.requests = RequestDriver{rate_per_us, c.service_us, 1, 0.0};
  const std::vector<TimeSliceJob> jobs = {{c.load, c.service_us},
                                          {c.other_duty, c.other_kernel_us}};
  // The fast side: the request-level replica on the slice schedule, as a cluster run drives it.
  const ServiceSpec spec = poisson_requests(rate_per_us, c.service_us);
  SliceContext slices;
  slices.slice_us = c.slice_us;
  slices.switch_us = c.switch_us;
  slices.interference = 0.0;
  slices.launch_gap_us = 0.0;
  slices.fixed_lengths = c.fixed_lengths;
  slices.others = {SliceContender{c.other_duty, c.other_kernel_us}};

  return replicate_request_latency(spec, ServiceGpuContext{&slices, nullptr}, window_us, seed,
                                   replications, [&](std::uint64_t s) {
                                     config.seed = s;
                                     return simulate_reference(jobs, config);
                                   });
}

}  // namespace gpumux
