// How far a fast rate model's job rates lie from a reference simulator's over a validation
// grid: the summary both the time-slicing and the MPS validations report.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

namespace gpumux {

struct RateErrorSummary {
  double max_abs_rate_error = 0.0;
  double mean_abs_rate_error = 0.0;
  int worst_case = -1;  // index into the grid
  int worst_job = -1;
  double worst_reference = 0.0, worst_fast = 0.0;
  int rates_compared = 0;

  // Adds one case's rates (same job order in both). Precondition: equal sizes.
  void add_case(int case_index, std::span<const double> reference, std::span<const double> fast) {
    for (std::size_t i = 0; i < reference.size(); ++i) {
      const double err = std::abs(reference[i] - fast[i]);
      sum_abs_ += err;
      ++rates_compared;
      if (err > max_abs_rate_error) {
        max_abs_rate_error = err;
        worst_case = case_index;
        worst_job = static_cast<int>(i);
        worst_reference = reference[i];
        worst_fast = fast[i];
      }
    }
    if (rates_compared > 0) mean_abs_rate_error = sum_abs_ / rates_compared;
  }

 private:
  double sum_abs_ = 0.0;
};

}  // namespace gpumux
