// The mean of a few runs' values and the half-width of its 95% confidence interval, from the
// Student t distribution: half-width = t(0.975, n - 1) * s / sqrt(n), with s the sample
// standard deviation (n - 1 in the denominator). Used by `gpumux compare` across seeds.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace gpumux {

// The 0.975 quantile of Student's t with `df` degrees of freedom (precondition: df >= 1):
// tabulated to 6 decimals for df <= 30, above that Hill's four-term expansion around the
// normal quantile (error below 1e-5 there).
double student_t_975(std::size_t df);

struct MeanInterval {
  std::optional<double> mean;        // absent when there are no values
  std::optional<double> half_width;  // absent with fewer than 2 values
};

MeanInterval mean_interval(const std::vector<double>& values);

// A mean's 95% interval, mean +- half_width, cut to the values the metric can take ([low, high]
// of its domain: a time or a count cannot be negative, a share not above 1). Deterministic;
// `clipped` when either end was cut, so that tables print [low, high] instead of +- there.
struct ClippedInterval {
  double low = 0.0, high = 0.0;
  bool clipped = false;
};
ClippedInterval clip_interval(double mean, double half_width, double domain_low,
                              double domain_high);

}  // namespace gpumux
