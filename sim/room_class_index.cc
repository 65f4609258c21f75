#include "sim/room_class_index.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace gpumux {

void RoomClassIndex::reset(std::vector<int> gpus_per_node, std::vector<GpuIndex> first_gpu) {
  gpus_per_node_ = std::move(gpus_per_node);
  first_gpu_ = std::move(first_gpu);
  max_gpus_ = 0;
  for (int g : gpus_per_node_) max_gpus_ = std::max(max_gpus_, g);
  if (max_gpus_ > 255) throw std::logic_error("room index: more than 255 GPUs on a node");
  words_ = (gpus_per_node_.size() + 63) / 64;
  classes_.clear();
  classes_.reserve(kMaxClasses);
  asked_ = 0;
}

void RoomClassIndex::move(Class& c, NodeIndex n, int from, int to) {
  const std::uint64_t bit = std::uint64_t{1} << (n % 64);
  c.bitmap[static_cast<std::size_t>(from) * words_ + n / 64] &= ~bit;
  c.bitmap[static_cast<std::size_t>(to) * words_ + n / 64] |= bit;
  c.count[n] = static_cast<std::uint8_t>(to);
}

void RoomClassIndex::on_room_changed(NodeIndex n, double before, double after) {
  for (Class& c : classes_) {
    const bool had = before >= c.need;  // false for NaN
    const bool has = after >= c.need;
    if (had == has) continue;
    const int k = c.count[n];
    move(c, n, k, has ? k + 1 : k - 1);
  }
}

std::size_t RoomClassIndex::class_for(double need, std::span<const double> open_room) {
  ++asked_;
  for (std::size_t i = 0; i < classes_.size(); ++i) {
    if (classes_[i].need == need) {
      classes_[i].last_asked = asked_;
      return i;
    }
  }
  std::size_t i = classes_.size();
  if (i < kMaxClasses) {
    classes_.emplace_back();
  } else {
    i = 0;
    for (std::size_t j = 1; j < classes_.size(); ++j) {
      if (classes_[j].last_asked < classes_[i].last_asked) i = j;
    }
  }
  Class& c = classes_[i];
  c.need = need;
  c.last_asked = asked_;
  c.count.assign(gpus_per_node_.size(), 0);
  c.bitmap.assign(static_cast<std::size_t>(max_gpus_ + 1) * words_, 0);
  for (NodeIndex n = 0; n < gpus_per_node_.size(); ++n) {
    int k = 0;
    for (int j = 0; j < gpus_per_node_[n]; ++j) k += open_room[first_gpu_[n] + j] >= need;
    c.count[n] = static_cast<std::uint8_t>(k);
    c.bitmap[static_cast<std::size_t>(k) * words_ + n / 64] |= std::uint64_t{1} << (n % 64);
  }
  return i;
}

std::optional<NodeIndex> RoomClassIndex::lowest(const Class& c, int k) const {
  const std::uint64_t* words = &c.bitmap[static_cast<std::size_t>(k) * words_];
  for (std::size_t w = 0; w < words_; ++w) {
    if (words[w] != 0) return static_cast<NodeIndex>(w * 64 + std::countr_zero(words[w]));
  }
  return std::nullopt;
}

std::optional<NodeIndex> RoomClassIndex::first_node(std::size_t c, int n) const {
  const Class& cl = classes_[c];
  // Word by word over the bitmaps of counts >= n: the first word with any bit holds the lowest.
  for (std::size_t w = 0; w < words_; ++w) {
    std::uint64_t any = 0;
    for (int k = std::max(n, 1); k <= max_gpus_; ++k) {
      any |= cl.bitmap[static_cast<std::size_t>(k) * words_ + w];
    }
    if (any != 0) return static_cast<NodeIndex>(w * 64 + std::countr_zero(any));
  }
  return std::nullopt;
}

std::optional<NodeIndex> RoomClassIndex::tightest_node(std::size_t c, int n) const {
  for (int k = std::max(n, 1); k <= max_gpus_; ++k) {
    if (auto node = lowest(classes_[c], k)) return node;
  }
  return std::nullopt;
}

}  // namespace gpumux
