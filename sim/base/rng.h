// The run's one random number generator. It is passed explicitly to whatever draws from it so
// that a run is a pure function of (scenario, seed).
#pragma once

#include <cstdint>
#include <random>

namespace gpumux {

using Rng = std::mt19937_64;

}  // namespace gpumux
