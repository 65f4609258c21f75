#include "analysis/plan/size_search.h"

#include <algorithm>

namespace gpumux {

namespace {

int log2_ceil(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

}  // namespace

SizeSearch::SizeSearch(int max_size) : max_size_(std::max(1, max_size)) {}

void SizeSearch::record(int size, bool met) { met_[size] = met; }

void SizeSearch::stop() {
  phase_ = Phase::kDone;
  hi_ = 0;
}

bool SizeSearch::done() { return !next().has_value(); }

std::optional<int> SizeSearch::next() {
  for (;;) {
    if (phase_ == Phase::kDone) return std::nullopt;
    if (phase_ == Phase::kBracket) {
      const auto it = met_.find(next_);
      if (it == met_.end()) return next_;
      if (it->second) {
        hi_ = next_;
        phase_ = Phase::kBisect;
      } else {
        lo_ = next_;
        if (next_ >= max_size_) {
          phase_ = Phase::kDone;  // not met within max_size
        } else {
          next_ = std::min(2 * next_, max_size_);
        }
      }
      continue;
    }
    if (hi_ - lo_ > 1) {
      const int mid = lo_ + (hi_ - lo_) / 2;
      const auto it = met_.find(mid);
      if (it == met_.end()) return mid;
      (it->second ? hi_ : lo_) = mid;
      continue;
    }
    // The boundary: one size below the answer must have been run and failed.
    const int below = hi_ - 1;
    if (below < 1) {
      phase_ = Phase::kDone;
      continue;
    }
    const auto it = met_.find(below);
    if (it == met_.end()) return below;
    if (!it->second) {
      phase_ = Phase::kDone;
      continue;
    }
    searched_down_ = true;
    hi_ = below;
    lo_ = 0;
    for (const auto& [size, met] : met_) {
      if (size < below && !met) lo_ = size;
    }
  }
}

int SizeSearch::remaining_runs() {
  next();  // settle on what the recorded results already decide
  switch (phase_) {
    case Phase::kDone:
      return 0;
    case Phase::kBisect:
      return log2_ceil(std::max(1, hi_ - lo_));
    case Phase::kBracket: {
      int steps = 0, size = next_, prev = lo_, widest = 1;
      for (;;) {
        ++steps;
        widest = std::max(widest, size - prev);
        if (size >= max_size_) break;
        prev = size;
        size = std::min(2 * size, max_size_);
      }
      return steps + log2_ceil(widest);
    }
  }
  return 0;
}

}  // namespace gpumux
