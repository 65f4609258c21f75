// Ascending sort of a sample of doubles in linear time (a radix sort on the values' bits), for
// the job distributions summarised at the end of a run: three samples of 100,000 values took
// 7% of a 100,000-job pooled run's instructions under std::sort.
#pragma once

#include <vector>

namespace gpumux {

// Sorts `values` ascending: the order std::sort gives, the same doubles in the same places,
// for samples without NaN. Precondition: no NaN. Values equal under == keep no particular
// order, as under std::sort; the one pair of equal values with different bits, -0.0 and +0.0,
// comes out -0.0 first.
void sort_doubles(std::vector<double>& values);

}  // namespace gpumux
