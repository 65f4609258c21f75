#include "analysis/stats/mean_interval.h"

#include <cmath>

namespace gpumux {

double student_t_975(std::size_t df) {
  static constexpr double kTable[] = {12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912,
                                      2.364624,  2.306004, 2.262157, 2.228139, 2.200985, 2.178813,
                                      2.160369,  2.144787, 2.131450, 2.119905, 2.109816, 2.100922,
                                      2.093024,  2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
                                      2.059539,  2.055529, 2.051831, 2.048407, 2.045230, 2.042272};
  constexpr std::size_t kTabulated = sizeof kTable / sizeof kTable[0];
  if (df >= 1 && df <= kTabulated) return kTable[df - 1];
  // Past the table the distribution is close enough to normal for a series in 1/df.
  const double z = 1.959963985;  // the normal 0.975 quantile
  const double z2 = z * z;
  const double n = static_cast<double>(df);
  const double g1 = z * (z2 + 1) / 4;
  const double g2 = z * ((5 * z2 + 16) * z2 + 3) / 96;
  const double g3 = z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384;
  const double g4 = z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160;
  return z + g1 / n + g2 / (n * n) + g3 / (n * n * n) + g4 / (n * n * n * n);
}

MeanInterval mean_interval(const std::vector<double>& values) {
  MeanInterval r;
  if (values.empty()) return r;
  double sum = 0.0;
  for (double v : values) sum += v;
  const double n = static_cast<double>(values.size());
  const double mean = sum / n;
  r.mean = mean;
  if (values.size() < 2) return r;
  double squares = 0.0;
  for (double v : values) squares += (v - mean) * (v - mean);
  const double sd = std::sqrt(squares / (n - 1));
  r.half_width = student_t_975(values.size() - 1) * sd / std::sqrt(n);
  return r;
}

ClippedInterval clip_interval(double mean, double half_width, double domain_low,
                              double domain_high) {
  ClippedInterval c{mean - half_width, mean + half_width, false};
  if (c.low < domain_low) {
    c.low = domain_low;
    c.clipped = true;
  }
  if (c.high > domain_high) {
    c.high = domain_high;
    c.clipped = true;
  }
  return c;
}

}  // namespace gpumux
