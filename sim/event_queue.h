// A min-heap of events ordered by (time, sequence number).
//
// The sequence number is assigned at push time, so events at the same time pop in insertion
// order and a run never depends on heap internals. Cancelling is done by the owner with version
// counters (a stale event is popped and ignored), which keeps push/pop O(log n) and
// allocation-free once the heap has grown to its working size. Precondition of top() and pop():
// not empty().
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/units.h"

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
};

struct Event {
  Time time;
  std::uint64_t sequence = 0;
  EventKind kind = EventKind::kArrival;
  std::uint32_t target = 0;
  std::uint32_t version = 0;
};

class EventQueue {
 public:
  void reserve(std::size_t n) { heap_.reserve(n); }
  void push(Time time, EventKind kind, std::uint32_t target = 0, std::uint32_t version = 0) {
    const Event e{time, next_sequence_++, kind, target, version};
    // Sift up from a hole at the end: parents move down instead of swapping.
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!earlier(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  bool empty() const { return heap_.empty(); }
  const Event& top() const { return heap_.front(); }
  Event pop() {
    const Event first = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return first;
    // Sift the last event down from a hole at the root.
    std::size_t i = 0;
    while (true) {
      const std::size_t child = i * kArity + 1;
      if (child >= n) break;
      std::size_t best = child;
      const std::size_t end = std::min(child + kArity, n);
      for (std::size_t c = child + 1; c < end; ++c) {
        if (earlier(heap_[c], heap_[best])) best = c;
      }
      if (!earlier(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
    return first;
  }
  std::size_t size() const { return heap_.size(); }

 private:
  // A 4-ary heap: half the levels of a binary one, and a node's children share a cache line or
  // two, so a pop touches fewer lines (the engine pops and pushes once per event). (time,
  // sequence) is a total order, so the pop order is the same as any other heap's.
  static constexpr std::size_t kArity = 4;
  static bool earlier(const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.sequence < b.sequence;
  }
  std::vector<Event> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace gpumux
