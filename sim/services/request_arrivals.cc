#include "sim/services/request_arrivals.h"

#include <cmath>
#include <random>

namespace gpumux {

RequestArrivals::RequestArrivals(const ServiceSpec& spec, double origin_us, std::uint64_t seed)
    : spec_(spec), origin_us_(origin_us), rng_(seed), last_us_(0.0) {}

double RequestArrivals::series_rate(double t_us, double& piece_end_us) const {
  const RateSeries& s = *spec_.series;
  const double period = s.repeat_s * 1e6;
  double base = 0.0;
  double local = t_us;
  if (period > 0) {
    base = std::floor(t_us / period) * period;
    local = t_us - base;
  }
  // Last point at or before `local` (points start at 0).
  std::size_t i = 0;
  while (i + 1 < s.points.size() && s.points[i + 1].first * 1e6 <= local) ++i;
  if (i + 1 < s.points.size()) {
    piece_end_us = base + s.points[i + 1].first * 1e6;
  } else {
    piece_end_us = period > 0 ? base + period : kNever;
  }
  // Guard against a piece end that rounding puts at or before t: always move forward.
  if (!(piece_end_us > t_us)) piece_end_us = std::nextafter(t_us, kNever);
  return s.points[i].second * 1e-6;
}

double RequestArrivals::next() {
  switch (spec_.arrival) {
    case ArrivalKind::kPoisson: {
      if (!(spec_.rate_per_s > 0)) return kNever;
      last_us_ += std::exponential_distribution<double>(spec_.rate_per_s * 1e-6)(rng_);
      return origin_us_ + last_us_;
    }
    case ArrivalKind::kTrace: {
      const auto& times = *spec_.times_s;
      if (trace_next_ >= times.size()) return kNever;
      return origin_us_ + times[trace_next_++] * 1e6;
    }
    case ArrivalKind::kSeries: {
      // Memoryless: within each constant piece draw an exponential gap; crossing the piece's
      // end, restart the draw there at the next piece's rate.
      double t = last_us_;
      for (;;) {
        double piece_end = kNever;
        const double rate = series_rate(t, piece_end);
        if (rate > 0) {
          const double x = t + std::exponential_distribution<double>(rate)(rng_);
          if (x < piece_end) {
            last_us_ = x;
            return origin_us_ + x;
          }
        }
        if (piece_end == kNever) return kNever;
        t = piece_end;
      }
    }
  }
  return kNever;
}

}  // namespace gpumux
