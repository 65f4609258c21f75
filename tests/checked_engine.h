// An engine for tests with every invariant check on (docs/testing.md "Invariant checks"): the engine's
// own (EngineOptions::check_invariants) and the InvariantChecker observer, heard before any
// observer the test adds, as `--check-invariants` runs them. A broken invariant throws
// InvariantViolation out of run() and fails the test.
#pragma once

#include <cstdint>

#include "sim/invariants/invariant_checker.h"
#include "sim/engine/engine.h"

namespace gpumux::testing {

class CheckedEngine {
 public:
  // The engine borrows everything; all must outlive run().
  CheckedEngine(Cluster& cluster, const SharingModel& model, Scheduler& scheduler,
                JobSource& source, EngineOptions options = {})
      : checker_(cluster, model), engine_(cluster, model, scheduler, source, checked(options)) {
    engine_.add_observer(&checker_);
  }

  void add_observer(EngineObserver* observer) { engine_.add_observer(observer); }
  EngineStats run() { return engine_.run(); }
  // Signals the checker has seen (nonzero once a job arrived).
  std::uint64_t checked_signals() const { return checker_.signals(); }

 private:
  static EngineOptions checked(EngineOptions options) {
    options.check_invariants = true;
    return options;
  }

  InvariantChecker checker_;
  Engine engine_;
};

}  // namespace gpumux::testing
