#include "sim/state/room_class_index.h"

#include <algorithm>
#include <stdexcept>

namespace gpumux {

void RoomClassIndex::reset(std::vector<int> gpus_per_node, std::vector<GpuIndex> first_gpu,
                           std::vector<int> rack_of_node) {
  if (rack_of_node.size() != gpus_per_node.size() || first_gpu.size() != gpus_per_node.size()) {
    throw std::logic_error("room index: per-node lists of different lengths");
  }
  gpus_per_node_ = std::move(gpus_per_node);
  first_gpu_ = std::move(first_gpu);
  rack_of_node_ = std::move(rack_of_node);
  racks_ = 0;
  for (int r : rack_of_node_) {
    if (r < 0) throw std::logic_error("room index: a negative rack");
    racks_ = std::max(racks_, static_cast<std::size_t>(r) + 1);
  }
  max_gpus_ = 0;
  for (int g : gpus_per_node_) max_gpus_ = std::max(max_gpus_, g);
  classes_.clear();
  classes_.reserve(kMaxClasses);
  asked_ = 0;
}

void RoomClassIndex::on_room_changed(NodeIndex n, double before, double after) {
  for (Class& c : classes_) {
    const bool had = before >= c.need;  // false for NaN
    const bool has = after >= c.need;
    if (had == has) continue;
    const int k = c.count[n];
    const int now = has ? k + 1 : k - 1;
    c.buckets.move(n, k, now);
    c.count[n] = now;
    c.per_rack[static_cast<std::size_t>(rack_of_node_[n])] += has ? 1 : -1;
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
  c.per_rack.assign(racks_, 0);
  c.buckets.reset(gpus_per_node_.size(), max_gpus_);
  for (NodeIndex n = 0; n < gpus_per_node_.size(); ++n) {
    int k = 0;
    for (int j = 0; j < gpus_per_node_[n]; ++j) k += open_room[first_gpu_[n] + j] >= need;
    c.count[n] = k;
    c.per_rack[static_cast<std::size_t>(rack_of_node_[n])] += k;
    c.buckets.add(n, k);
  }
  return i;
}

std::optional<NodeIndex> RoomClassIndex::first_node(std::size_t c, int n) const {
  return classes_[c].buckets.first_with_at_least(n);
}

std::optional<NodeIndex> RoomClassIndex::tightest_node(std::size_t c, int n) const {
  return classes_[c].buckets.tightest_with_at_least(n);
}

}  // namespace gpumux
