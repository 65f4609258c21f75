#include "analysis/stats/sort_doubles.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace gpumux {
namespace {

// An unsigned key ordered as the doubles are: a positive double's bits with the sign bit set,
// a negative one's bits all flipped (its magnitude orders the other way).
std::uint64_t key_of(double x) {
  const auto bits = std::bit_cast<std::uint64_t>(x);
  return (bits >> 63) != 0 ? ~bits : bits | (std::uint64_t{1} << 63);
}

double double_of(std::uint64_t key) {
  return std::bit_cast<double>((key >> 63) != 0 ? key & ~(std::uint64_t{1} << 63) : ~key);
}

constexpr int kDigitBits = 11;
constexpr std::size_t kDigits = std::size_t{1} << kDigitBits;
constexpr int kPasses = (64 + kDigitBits - 1) / kDigitBits;
// Below this many values the counting passes cost more than they save.
constexpr std::size_t kSmallSample = 512;

std::size_t digit(std::uint64_t key, int pass) {
  return static_cast<std::size_t>(key >> (pass * kDigitBits)) & (kDigits - 1);
}

}  // namespace

void sort_doubles(std::vector<double>& values) {
  const std::size_t n = values.size();
  if (n < kSmallSample) {
    std::sort(values.begin(), values.end());
    return;
  }
  std::vector<std::uint64_t> keys(n);
  std::vector<std::uint64_t> scratch(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = key_of(values[i]);
  std::vector<std::array<std::size_t, kDigits>> counts(kPasses);
  for (auto& c : counts) c.fill(0);
  for (const std::uint64_t k : keys) {
    for (int p = 0; p < kPasses; ++p) ++counts[p][digit(k, p)];
  }
  // Least significant digit first; each pass is stable, so the order of the earlier digits
  // survives among keys that share this one.
  for (int p = 0; p < kPasses; ++p) {
    auto& count = counts[p];
    if (count[digit(keys[0], p)] == n) continue;  // every key has this digit: nothing moves
    std::size_t start = 0;
    for (auto& c : count) {
      const std::size_t here = c;
      c = start;
      start += here;
    }
    for (const std::uint64_t k : keys) scratch[count[digit(k, p)]++] = k;
    keys.swap(scratch);
  }
  for (std::size_t i = 0; i < n; ++i) values[i] = double_of(keys[i]);
}

}  // namespace gpumux
