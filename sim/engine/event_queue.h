// A min-heap of events ordered by (time, sequence number).
//
// The sequence number is assigned at push time, so events at the same time pop in insertion
// order and a run never depends on heap internals. push/pop are O(log n) and allocation-free
// once the heap has grown to its working size. Precondition of top() and pop(): not empty().
//
// Keyed events (schedule): a key (a job slot) has at most one pending keyed event, and
// scheduling another replaces it in place (O(log n)), as if the old one were removed and the
// new one pushed: it takes the next sequence number. So a job whose completion moves at every
// rate change leaves no superseded events behind to be popped later (under sharing models they
// were most of a run's events). Keys index a table grown on demand: keep them dense.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/base/units.h"

namespace gpumux {

enum class EventKind : std::uint8_t {
  kArrival,          // the next trace job arrives; target unused
  kCompletion,       // target = job slot; valid only while `version` matches the job's
  kMemoryChange,     // target = job slot: the job's memory profile steps (same version rule)
  kRetry,            // target = job slot: a killed job re-enters the queue
  kGpuRecovered,     // target = GPU: the fault is over, the GPU takes jobs again
  kGpuReconfigured,  // target = GPU: its new layout is in place
  kFatalFault,       // target = job slot: its process faults (same version rule as completion)
  kCheckpointWritten,  // target = job slot: its migration checkpoint is written (same rule)
  kGpuResplit,         // target = GPU: its in-place re-split is done, it takes jobs again
};

struct Event {
  Time time;
  std::uint64_t sequence = 0;
  EventKind kind = EventKind::kArrival;
  std::uint32_t target = 0;
  std::uint32_t version = 0;
  bool keyed = false;  // scheduled under key `target` (EventQueue::schedule)
};

class EventQueue {
 public:
  void reserve(std::size_t n) { heap_.reserve(n); }
  // An event without a key: it stays until popped.
  void push(Time time, EventKind kind, std::uint32_t target = 0, std::uint32_t version = 0) {
    const std::size_t i = heap_.size();
    heap_.emplace_back();
    sift_up(i, Event{time, next_sequence_++, kind, target, version, false});
  }
  // The pending event of key `key` (its target): replaces the one the key had, if any.
  void schedule(std::uint32_t key, Time time, EventKind kind, std::uint32_t version = 0) {
    if (key >= position_.size()) position_.resize(std::size_t{key} + 1, kNone);
    const Event e{time, next_sequence_++, kind, key, version, true};
    const std::size_t at = position_[key];
    if (at == kNone) {
      const std::size_t i = heap_.size();
      heap_.emplace_back();
      sift_up(i, e);
    } else {
      reposition(at, e);
    }
  }
  // Removes the pending event of `key`, if it has one.
  void cancel(std::uint32_t key) {
    if (key >= position_.size() || position_[key] == kNone) return;
    const std::size_t at = position_[key];
    position_[key] = kNone;
    const Event last = heap_.back();
    heap_.pop_back();
    if (at < heap_.size()) reposition(at, last);
  }
  // Whether `key` has a pending event.
  bool scheduled(std::uint32_t key) const {
    return key < position_.size() && position_[key] != kNone;
  }
  bool empty() const { return heap_.empty(); }
  const Event& top() const { return heap_.front(); }
  Event pop() {
    const Event first = heap_.front();
    if (first.keyed) position_[first.target] = kNone;
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, last);
    return first;
  }
  std::size_t size() const { return heap_.size(); }

 private:
  // A 4-ary heap: half the levels of a binary one, and a node's children share a cache line or
  // two, so a pop touches fewer lines (the engine pops and pushes once per event). (time,
  // sequence) is a total order, so the pop order is the same as any other heap's.
  static constexpr std::size_t kArity = 4;
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  static bool earlier(const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.sequence < b.sequence;
  }
  void place(std::size_t i, const Event& e) {
    heap_[i] = e;
    if (e.keyed) position_[e.target] = static_cast<std::uint32_t>(i);
  }
  // Puts `e` into the hole at i, moving parents down while e is earlier.
  void sift_up(std::size_t i, const Event& e) {
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!earlier(e, heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, e);
  }
  // Puts `e` into the hole at i, moving the earliest child up while it is earlier than e.
  void sift_down(std::size_t i, const Event& e) {
    const std::size_t n = heap_.size();
    while (true) {
      const std::size_t child = i * kArity + 1;
      if (child >= n) break;
      std::size_t best = child;
      const std::size_t end = std::min(child + kArity, n);
      for (std::size_t c = child + 1; c < end; ++c) {
        if (earlier(heap_[c], heap_[best])) best = c;
      }
      if (!earlier(heap_[best], e)) break;
      place(i, heap_[best]);
      i = best;
    }
    place(i, e);
  }
  // Puts `e` into the hole at i (anywhere in the heap), up or down as its order asks.
  void reposition(std::size_t i, const Event& e) {
    if (i > 0 && earlier(e, heap_[(i - 1) / kArity])) {
      sift_up(i, e);
    } else {
      sift_down(i, e);
    }
  }
  std::vector<Event> heap_;
  std::vector<std::uint32_t> position_;  // per key: its event's index in heap_, or kNone
  std::uint64_t next_sequence_ = 0;
};

}  // namespace gpumux
