// Runs a set of measured processes: forks them (before any CUDA call, which is not
// fork-safe), lets each initialise itself, starts them at one common instant, collects what
// each reports, and never waits past a deadline (late children are killed).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace gpumux::calibration {

// CLOCK_MONOTONIC in seconds; the same clock in every process of the machine.
double monotonic_s();

// Set from a signal handler (async-signal-safe): running sets are killed, no new one starts.
void request_stop();
bool stop_requested();

// A child's link to the parent, handed to its body.
class StartGate {
 public:
  StartGate(int to_parent_fd, int from_parent_fd)
      : to_parent_(to_parent_fd), from_parent_(from_parent_fd) {}
  // Tells the parent this child is ready (context created, warmed up), then waits for the
  // common start instant the parent sends and returns at that instant (monotonic_s()
  // clock). Returns a negative value when the parent gave up on the set; the body should
  // then return at once.
  double ready_and_wait();

 private:
  int to_parent_;
  int from_parent_;
};

// Runs in the child; returns the payload the parent receives. An exception becomes the
// child's `error`.
using ChildBody = std::function<std::string(int member, StartGate& gate)>;

// Variables set in a child before its body runs, in order; an empty value removes the
// variable.
using EnvVars = std::vector<std::pair<std::string, std::string>>;

struct ChildResult {
  bool ready = false;      // reached ready_and_wait()
  bool timed_out = false;  // killed at a deadline
  bool exited = false;     // exited by itself (see exit_code)
  int exit_code = -1;
  int signal = 0;  // killed by this signal (0 if none)
  bool has_payload = false;
  std::string payload;  // the body's return value
  std::string error;    // the body's exception text
  double exit_s = -1;   // monotonic_s() when the parent saw its output end
};

struct SetRun {
  double start_s = -1;  // common start sent to the children, -1 when none was ready
  std::vector<ChildResult> children;
};

// Forks one child per entry of `envs` (each gets those variables set before its body runs)
// and runs `body(member)` in it. Waits `ready_timeout_s` for all to be ready, starts the
// ready ones `start_delay_s` later, then waits until `run_timeout_s` after the start.
SetRun run_child_set(const std::vector<EnvVars>& envs, const ChildBody& body,
                     double ready_timeout_s, double run_timeout_s, double start_delay_s = 0.05);

// Convenience: one child, started as soon as it is ready.
ChildResult run_child(const EnvVars& env, const std::function<std::string()>& body,
                      double timeout_s);

}  // namespace gpumux::calibration
