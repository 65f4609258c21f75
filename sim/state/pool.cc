#include "sim/state/pool.h"

#include <cfenv>
#include <cmath>

namespace gpumux {

std::int64_t round_half_even(double x) {
  // nearbyint rounds in the current mode; the default, and the one assumed here, is to nearest
  // with ties to even.
  return static_cast<std::int64_t>(std::nearbyint(x));
}

PoolAmount pool_capacity(const PoolSpec& pool) {
  return PoolAmount{std::int64_t{100} * pool.gpus,
                    round_half_even(100.0 * pool.cpus_per_gpu * pool.gpus)};
}

PoolAmount pool_request(const JobSpec& job) {
  const double share = job.gpus == 0 ? 0.0 : job.sm_share;
  return PoolAmount{round_half_even(100.0 * job.gpus * share), round_half_even(100.0 * job.cpus)};
}

}  // namespace gpumux
