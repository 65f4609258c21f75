// Nodes bucketed by a small count (0..max_count), one bitmap over the nodes per count: the
// cluster's empty-GPU index (count: empty GPUs) and the room index's (count: GPUs with room)
// both answer "the lowest node with at least n" and "the node with the fewest, at least n"
// from max_count bitmaps of nodes / 64 words, without a pass over the nodes.
//
// Allocation: reset() sizes the bitmaps (reusing them at the same size); nothing else
// allocates.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/state/topology.h"

namespace gpumux {

class NodeBuckets {
 public:
  // `nodes` nodes, counts 0..max_count; every bucket empty (put each node in with add).
  void reset(std::size_t nodes, int max_count) {
    words_ = (nodes + 63) / 64;
    max_count_ = max_count;
    bits_.assign(static_cast<std::size_t>(max_count + 1) * words_, 0);
  }
  // Puts node n into bucket k (it must be in no bucket).
  void add(NodeIndex n, int k) { word(k, n) |= bit(n); }
  // Moves node n from bucket `from` to bucket `to`.
  void move(NodeIndex n, int from, int to) {
    word(from, n) &= ~bit(n);
    word(to, n) |= bit(n);
  }
  // The lowest-index node in bucket k.
  std::optional<NodeIndex> lowest(int k) const {
    const std::uint64_t* words = &bits_[static_cast<std::size_t>(k) * words_];
    for (std::size_t w = 0; w < words_; ++w) {
      if (words[w] != 0) return static_cast<NodeIndex>(w * 64 + std::countr_zero(words[w]));
    }
    return std::nullopt;
  }
  // The lowest-index node with a count of at least n (>= 1): the first that visit_at_least
  // visits (the first word with any bit over the buckets n..max_count holds it).
  std::optional<NodeIndex> first_with_at_least(int n) const {
    std::optional<NodeIndex> first;
    visit_at_least(n, [&](NodeIndex node) {
      first = node;
      return false;
    });
    return first;
  }
  // The node with the smallest count that is at least n (>= 1), lowest index on ties.
  std::optional<NodeIndex> tightest_with_at_least(int n) const {
    for (int k = std::max(n, 1); k <= max_count_; ++k) {
      if (auto node = lowest(k)) return node;
    }
    return std::nullopt;
  }
  // Calls f(node) for each node with a count of at least n (>= 1) in increasing node order,
  // until it returns false: word by word, the bits of the buckets n..max_count or-ed together.
  template <typename Visit>
  void visit_at_least(int n, Visit&& f) const {
    for (std::size_t w = 0; w < words_; ++w) {
      std::uint64_t any = 0;
      for (int k = std::max(n, 1); k <= max_count_; ++k) {
        any |= bits_[static_cast<std::size_t>(k) * words_ + w];
      }
      for (; any != 0; any &= any - 1) {
        if (!f(static_cast<NodeIndex>(w * 64 + std::countr_zero(any)))) return;
      }
    }
  }
  // Calls f(node) for each node in bucket k in increasing order until it returns false.
  template <typename Visit>
  void visit(int k, Visit&& f) const {
    const std::uint64_t* words = &bits_[static_cast<std::size_t>(k) * words_];
    for (std::size_t w = 0; w < words_; ++w) {
      for (std::uint64_t b = words[w]; b != 0; b &= b - 1) {
        if (!f(static_cast<NodeIndex>(w * 64 + std::countr_zero(b)))) return;
      }
    }
  }

 private:
  static std::uint64_t bit(NodeIndex n) { return std::uint64_t{1} << (n % 64); }
  std::uint64_t& word(int k, NodeIndex n) {
    return bits_[static_cast<std::size_t>(k) * words_ + n / 64];
  }
  std::size_t words_ = 0;
  int max_count_ = 0;
  std::vector<std::uint64_t> bits_;  // bucket k's word w at k * words_ + w
};

}  // namespace gpumux
