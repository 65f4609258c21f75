// The planner's search over cluster sizes 1..max_size for one model (docs/planning.md "Capacity
// planning"): doubling from size 1 until a size meets the objectives (capped at max_size), then
// bisection between the last size that failed and the first that met, then a check that one
// size below the answer was run and failed. Which size comes next depends only on the results
// recorded, never on timing, so concurrent searches stay deterministic.
#pragma once

#include <map>
#include <optional>

namespace gpumux {

class SizeSearch {
 public:
  explicit SizeSearch(int max_size);  // precondition: max_size >= 1

  // The next size to run, or nothing when the search is over. Calling it again without a
  // record() returns the same size.
  std::optional<int> next();
  // The outcome of running `size` (one of the sizes next() asked for).
  void record(int size, bool met);
  // Ends the search without an answer: what the results recorded say holds at every size (the
  // planner's incurable rejections), so no size up to max_size can meet the objectives.
  void stop();

  bool done();
  // The smallest size found to meet the objectives whose next-smaller size failed; 0 when no
  // size up to max_size met them. Valid once done().
  int answer() const { return hi_; }
  // True when a size below an earlier answer met the objectives too and the search went on
  // downwards. Bisection ends with its last failing probe one below the answer, so this stays
  // false for monotone and non-monotone outcomes alike; it guards the contract, not the schedule.
  bool searched_down() const { return searched_down_; }
  // At most this many more runs (for progress lines).
  int remaining_runs();

 private:
  enum class Phase { kBracket, kBisect, kDone };

  int max_size_;
  Phase phase_ = Phase::kBracket;
  int next_ = 1;  // bracket: the next size to try
  int lo_ = 0;    // the largest size known to fail below hi_ (0: none)
  int hi_ = 0;    // the smallest size known to meet (0: none yet)
  bool searched_down_ = false;
  std::map<int, bool> met_;  // results by size
};

}  // namespace gpumux
