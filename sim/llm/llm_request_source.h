// The requests an LLM endpoint receives (LlmLoad, sim/llm/llm_endpoint.h), one at a time in
// arrival order: open loop (a trace's rows, or generated arrivals) or closed loop (each client
// sends its next request when its last one ends, so at most `clients` are ever in flight).
#pragma once

#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

#include "sim/base/rng.h"
#include "sim/llm/llm_endpoint.h"

namespace gpumux {

struct LlmArrival {
  double at_us = 0.0;
  std::int32_t prompt_tokens = 0;
  std::int32_t output_tokens = 0;
  bool measured = true;  // false for a closed loop's warm-up requests
};

class LlmRequestSource {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  // `load` must outlive the source; arrivals start at origin_us.
  LlmRequestSource(const LlmLoad& load, double origin_us, std::uint64_t seed);

  // When the next request arrives (absolute us), or kNever (none due: a closed loop whose
  // clients are all waiting, or a load that has ended).
  double next_at() const { return next_.at_us; }
  // Takes the next request. Precondition: next_at() < kNever.
  LlmArrival take();
  // A closed loop's request ended (served, refused or dropped) at t_us: its client sends the
  // next one then. No effect on an open loop.
  void request_ended(double t_us);
  // Stops (a killed endpoint): no further arrivals until restart(t_us) starts the load again
  // from t_us (open loop: arrivals in between are skipped and counted by skipped()).
  void stop(double t_us);
  void restart(double t_us);
  std::int64_t skipped() const { return skipped_; }

 private:
  void draw_next();
  void draw_tokens(LlmArrival& a);
  double gap_us();

  const LlmLoad& load_;
  double origin_us_;
  Rng rng_;
  LlmArrival next_;
  std::size_t row_ = 0;          // kTrace: next row
  double last_us_ = 0.0;         // kGenerated: time of the last draw
  std::int64_t issued_ = 0;      // kClosed: requests sent so far
  std::priority_queue<double, std::vector<double>, std::greater<>> ready_;  // kClosed
  bool stopped_ = false;
  std::int64_t skipped_ = 0;
};

}  // namespace gpumux
