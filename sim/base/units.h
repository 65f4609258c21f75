// Strong types for simulated time and memory.
//
// Time is an integer count of microseconds: event order must be exact and reproducible, which
// floating-point time cannot guarantee over millions of events. Memory is an integer count of
// MiB, the unit every trace and device table uses.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpumux {

// A point in simulated time or a duration, in microseconds.
class Time {
 public:
  constexpr Time() = default;
  static constexpr Time from_us(std::int64_t us) { return Time(us); }
  // Rounds to the nearest microsecond. Precondition: finite and within int64 range.
  static constexpr Time from_seconds(double s) {
    return Time(static_cast<std::int64_t>(s * 1e6 + (s >= 0 ? 0.5 : -0.5)));
  }
  static constexpr Time zero() { return Time(0); }
  static constexpr Time infinity() { return Time(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t us() const { return us_; }
  constexpr double seconds() const { return static_cast<double>(us_) * 1e-6; }
  constexpr bool is_infinite() const { return us_ == std::numeric_limits<std::int64_t>::max(); }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Time o) const { return Time(us_ + o.us_); }
  constexpr Time operator-(Time o) const { return Time(us_ - o.us_); }
  constexpr Time& operator+=(Time o) {
    us_ += o.us_;
    return *this;
  }
  constexpr Time& operator-=(Time o) {
    us_ -= o.us_;
    return *this;
  }

 private:
  constexpr explicit Time(std::int64_t us) : us_(us) {}
  std::int64_t us_ = 0;
};

// The latest instant a simulation may reach: 2^62 us, about 146,000 years. It is half the range
// of int64, so adding a valid instant and a valid duration never overflows; a run that would
// pass it stops with TimeOverflow instead of wrapping to negative times.
inline constexpr std::int64_t kMaxSimulatedUs = std::int64_t{1} << 62;
// The largest time or duration any input may give, in seconds (about 31,700 years); anything
// larger is a unit mistake. 1e12 s = 1e18 us, well below kMaxSimulatedUs.
inline constexpr double kMaxInputSeconds = 1e12;

// Simulated time would pass kMaxSimulatedUs, e.g. very long jobs queued one after another. The
// run driver turns it into an InputError naming the trace.
class TimeOverflow : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

// `now` plus a non-negative duration of `us` microseconds (a double: rates make durations
// fractional and, for tiny rates, huge). Throws TimeOverflow, with `describe()` (a string)
// saying whose time it is, when the sum passes kMaxSimulatedUs or `us` is not finite. The
// message is built only then: this is on the engine's hot path.
template <typename Describe>
Time checked_after(Time now, double us, Describe&& describe) {
  if (!(us <= static_cast<double>(kMaxSimulatedUs - now.us()))) {
    throw TimeOverflow(std::string(describe()) +
                       " would pass the latest simulated time (2^62 us, about 146,000 "
                       "years)");
  }
  return now + Time::from_us(static_cast<std::int64_t>(us));
}

// An amount of device memory, in MiB.
class MemoryMiB {
 public:
  constexpr MemoryMiB() = default;
  constexpr explicit MemoryMiB(std::int64_t mib) : mib_(mib) {}
  constexpr std::int64_t mib() const { return mib_; }
  constexpr double gib() const { return static_cast<double>(mib_) / 1024.0; }

  constexpr auto operator<=>(const MemoryMiB&) const = default;
  constexpr MemoryMiB operator+(MemoryMiB o) const { return MemoryMiB(mib_ + o.mib_); }
  constexpr MemoryMiB operator-(MemoryMiB o) const { return MemoryMiB(mib_ - o.mib_); }
  constexpr MemoryMiB& operator+=(MemoryMiB o) {
    mib_ += o.mib_;
    return *this;
  }
  constexpr MemoryMiB& operator-=(MemoryMiB o) {
    mib_ -= o.mib_;
    return *this;
  }

 private:
  std::int64_t mib_ = 0;
};

}  // namespace gpumux
