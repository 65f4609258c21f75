#include "models/fractional/limiter.h"

#include <algorithm>

namespace gpumux {

namespace {

constexpr double kEpsilon = 1e-12;

}  // namespace

void limiter_grants(std::span<const double> duty, std::span<const double> share,
                    bool work_conserving, std::span<double> granted) {
  const std::size_t n = duty.size();
  double used = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    granted[i] = std::min(duty[i], share[i]);
    used += granted[i];
  }
  if (!work_conserving) return;
  double spare = 1.0 - used;
  // Each round either satisfies at least one hungry job or hands out all that is left.
  for (std::size_t round = 0; round < n && spare > kEpsilon; ++round) {
    double hungry_share = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      if (granted[i] < duty[i] - kEpsilon) hungry_share += share[i];
    }
    if (hungry_share <= 0.0) break;
    double handed = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      if (granted[i] >= duty[i] - kEpsilon) continue;
      const double extra = std::min(duty[i] - granted[i], spare * share[i] / hungry_share);
      granted[i] += extra;
      handed += extra;
    }
    spare -= handed;
  }
}

}  // namespace gpumux
