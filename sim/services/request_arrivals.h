// The request arrival process of one service replica, on absolute simulated time in
// microseconds (doubles: requests are far finer than the engine's events and never enter its
// queue). Times in the ServiceSpec are relative to `origin_us`, the replica's first start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "sim/base/rng.h"
#include "sim/core/service.h"

namespace gpumux {

class RequestArrivals {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  // `spec` must outlive this object. `seed` seeds the replica's own stream.
  RequestArrivals(const ServiceSpec& spec, double origin_us, std::uint64_t seed);

  // Draws the next arrival after the previous one (the first after origin_us), or kNever.
  double next();

  // Calls f(begin_us, end_us, rate_per_us) for consecutive pieces of [begin_us, end_us) on
  // which the expected arrival rate is constant (a request-time trace: its mean rate over the
  // whole span). Precondition: begin_us >= origin_us; calls are made with increasing spans.
  template <typename F>
  void for_each_piece(double begin_us, double end_us, F&& f);

 private:
  // Rate (per us) at relative time t_us, and where that rate ends (relative, kNever if never).
  double series_rate(double t_us, double& piece_end_us) const;

  const ServiceSpec& spec_;
  double origin_us_;
  Rng rng_;
  double last_us_;              // relative time of the previous draw
  std::size_t trace_next_ = 0;  // next request time of a trace
};

template <typename F>
void RequestArrivals::for_each_piece(double begin_us, double end_us, F&& f) {
  if (!(end_us > begin_us)) return;
  switch (spec_.arrival) {
    case ArrivalKind::kPoisson:
      f(begin_us, end_us, spec_.rate_per_s * 1e-6);
      return;
    case ArrivalKind::kTrace: {
      const auto& times = *spec_.times_s;
      std::size_t n = 0;
      while (trace_next_ < times.size() && origin_us_ + times[trace_next_] * 1e6 < end_us) {
        if (origin_us_ + times[trace_next_] * 1e6 >= begin_us) ++n;
        ++trace_next_;
      }
      f(begin_us, end_us, static_cast<double>(n) / (end_us - begin_us));
      return;
    }
    case ArrivalKind::kSeries: {
      double t = begin_us - origin_us_;
      const double end = end_us - origin_us_;
      while (t < end) {
        double piece_end = kNever;
        const double rate = series_rate(t, piece_end);
        const double stop = piece_end < end ? piece_end : end;
        f(origin_us_ + t, origin_us_ + stop, rate);
        t = stop;
      }
      return;
    }
  }
}

}  // namespace gpumux
