// A min-heap of events ordered by (time, sequence number).
//
// The sequence number is assigned at push time, so events at the same time pop in insertion
// order and a run never depends on heap internals. Cancelling is done by the owner with version
// counters (a stale event is popped and ignored), which keeps push/pop O(log n) and
// allocation-free once the heap has grown to its working size.
#pragma once

#include <cstdint>
#include <queue>
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
  void reserve(std::size_t n) {
    std::vector<Event> storage;
    storage.reserve(n);
    heap_ = Heap(Later{}, std::move(storage));
  }
  void push(Time time, EventKind kind, std::uint32_t target = 0, std::uint32_t version = 0) {
    heap_.push(Event{time, next_sequence_++, kind, target, version});
  }
  bool empty() const { return heap_.empty(); }
  const Event& top() const { return heap_.top(); }
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }
  std::size_t size() const { return heap_.size(); }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      if (a.time != b.time) return a.time > b.time;
      return a.sequence > b.sequence;
    }
  };
  using Heap = std::priority_queue<Event, std::vector<Event>, Later>;
  Heap heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace gpumux
