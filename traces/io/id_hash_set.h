// A set of 64-bit id hashes in one flat table (open addressing, linear probing), for the
// duplicate-id check of traces of millions of rows: 8 bytes a slot at most 3/4 full, so 11 to 21
// bytes per id, against ~40 for std::unordered_set's node per id plus its bucket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpumux {

class IdHashSet {
 public:
  // Adds `hash`; false when it was already there.
  bool insert(std::uint64_t hash) {
    // 0 marks an empty slot: hashes 0 and 1 count as one id, as unlikely as any collision.
    if (hash == kEmpty) hash = 1;
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    if (!place(slots_, hash)) return false;
    ++size_;
    return true;
  }
  std::size_t size() const { return size_; }
  // Asks the processor for the slot where insert(hash) starts looking: a reader that knows an
  // id a few rows ahead hides the cache miss of a random slot in a large table.
  void prefetch(std::uint64_t hash) const {
    if (slots_.empty()) return;
    if (hash == kEmpty) hash = 1;
    __builtin_prefetch(&slots_[slot_of(hash, slots_.size() - 1)]);
  }

 private:
  static constexpr std::uint64_t kEmpty = 0;

  // Ids hash with std::hash (often the identity-like FNV or murmur); a final mix spreads them
  // over the table's low bits.
  static std::size_t slot_of(std::uint64_t h, std::size_t mask) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return static_cast<std::size_t>(h) & mask;
  }
  static bool place(std::vector<std::uint64_t>& table, std::uint64_t hash) {
    const std::size_t mask = table.size() - 1;
    for (std::size_t i = slot_of(hash, mask);; i = (i + 1) & mask) {
      if (table[i] == hash) return false;
      if (table[i] == kEmpty) {
        table[i] = hash;
        return true;
      }
    }
  }
  void grow() {
    std::vector<std::uint64_t> bigger(slots_.empty() ? 1024 : slots_.size() * 2, kEmpty);
    for (std::uint64_t h : slots_) {
      if (h != kEmpty) place(bigger, h);
    }
    slots_.swap(bigger);
  }

  std::vector<std::uint64_t> slots_;
  std::size_t size_ = 0;
};

}  // namespace gpumux
