// A bounded memo of one GPU's rate computation (SharingModel::compute_rates), keyed by exactly
// the inputs the computation reads, in the order it reads them.
//
// Why: a GPU's rates are recomputed whenever its residents change, and the same inputs come
// back often: the GPUs of a gang job hold the same residents and are refreshed together, and a
// short job that comes and goes beside long ones returns its GPU to the residents it had before
// (on 20,000 jobs of the 1M replay under timeslice, 56% of the computations repeat an earlier
// one). The rate models are deterministic functions of their inputs, so the same inputs in the
// same order give the same doubles: answering from the memo changes no result, bit for bit.
//
// The key is a list of 64-bit words that the model writes: a few header words (e.g. which
// parameter set the device selects), then the same number of words per resident, in resident
// order (e.g. the bits of its sm_util, its kernel length). Two calls with equal keys must be
// the same computation; a model that reads an input must put it in the key.
//
// Bounded: a fixed number of entries, each holding up to `max_residents` residents, allocated
// once; a new key overwrites whatever held its entry (direct-mapped by the key's hash). Lookups
// and stores never allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "sim/core/sharing_model.h"

namespace gpumux {

class RateMemo {
 public:
  // `entries` is rounded up to a power of two. Keys of more than `max_residents` residents are
  // never remembered (find says no, store does nothing).
  RateMemo(std::size_t entries, std::size_t header_words, std::size_t words_per_resident,
           std::size_t max_residents)
      : header_words_(header_words),
        words_per_resident_(words_per_resident),
        max_residents_(max_residents),
        key_stride_(header_words + words_per_resident * max_residents) {
    std::size_t size = 1;
    while (size < entries) size *= 2;
    mask_ = size - 1;
    residents_.assign(size, 0);
    keys_.assign(size * key_stride_, 0);
    rates_.assign(size * max_residents_, 0.0);
    loads_.assign(size, GpuLoad{});
    key_.assign(key_stride_, 0);
  }

  // The rates and load of a GPU of `rates.size()` residents: `fill_key(*this)` writes the key
  // (header and per-resident words); the answer comes from the memo when it holds the key, else
  // from `compute()`, which writes `rates` and `load` and whose answer is then remembered. A GPU
  // of more residents than remembered is always computed, and builds no key.
  template <class FillKey, class Compute>
  void answer(std::span<double> rates, GpuLoad& load, FillKey&& fill_key, Compute&& compute) {
    const bool remembered = remembers(rates.size());
    if (remembered) {
      fill_key(*this);
      if (find(rates, load)) return;
    }
    compute();
    if (remembered) store(rates, load);
  }

  // Whether a GPU of `residents` residents can be remembered.
  bool remembers(std::size_t residents) const {
    return residents >= 1 && residents <= max_residents_;
  }

  // The key being built: header word `i`, and word `w` of resident `r`.
  std::uint64_t& header(std::size_t i) { return key_[i]; }
  std::uint64_t& word(std::size_t r, std::size_t w) {
    return key_[header_words_ + r * words_per_resident_ + w];
  }

  // Looks the key (header and the first `rates.size()` residents' words) up. On a hit, writes
  // the remembered rates and load and returns true. On a miss, returns false and remembers
  // where the following store() puts its answer. Precondition: remembers(rates.size()).
  bool find(std::span<double> rates, GpuLoad& load) {
    const std::size_t n = rates.size();
    const std::size_t words = header_words_ + n * words_per_resident_;
    std::uint64_t h = 0x9E3779B97F4A7C15ULL * (n + 1);
    for (std::size_t i = 0; i < words; ++i) h = mix(h ^ key_[i]);
    slot_ = static_cast<std::size_t>(h) & mask_;
    pending_words_ = words;
    pending_residents_ = n;
    if (residents_[slot_] != n ||
        std::memcmp(&keys_[slot_ * key_stride_], key_.data(), words * sizeof(std::uint64_t)) != 0) {
      return false;
    }
    std::memcpy(rates.data(), &rates_[slot_ * max_residents_], n * sizeof(double));
    load = loads_[slot_];
    return true;
  }

  // Remembers the answer to the key of the last find() (which must have missed).
  void store(std::span<const double> rates, const GpuLoad& load) {
    residents_[slot_] = pending_residents_;
    std::memcpy(&keys_[slot_ * key_stride_], key_.data(), pending_words_ * sizeof(std::uint64_t));
    std::memcpy(&rates_[slot_ * max_residents_], rates.data(), rates.size() * sizeof(double));
    loads_[slot_] = load;
  }

  // The bits of a double, for keys: equal bits, equal inputs (-0.0 and 0.0 differ, harmlessly).
  static std::uint64_t bits(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
  }

 private:
  static std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return x;
  }

  std::size_t header_words_;
  std::size_t words_per_resident_;
  std::size_t max_residents_;
  std::size_t key_stride_;
  std::size_t mask_ = 0;
  std::vector<std::size_t> residents_;  // per entry: its key's residents (0: empty)
  std::vector<std::uint64_t> keys_;     // per entry: key_stride_ words
  std::vector<double> rates_;           // per entry: max_residents_ rates
  std::vector<GpuLoad> loads_;
  std::vector<std::uint64_t> key_;  // the key being built
  std::size_t slot_ = 0;
  std::size_t pending_words_ = 0;
  std::size_t pending_residents_ = 0;
};

}  // namespace gpumux
